/**
 * Root fields of tracked functions: `<fn>(args: <fn>_args, distinct_on,
 * limit, offset, order_by, where): [<table>!]!` and, when the role may
 * aggregate the return table, `<fn>_aggregate`. Functions exposed as
 * mutations get only `<fn>` on `mutation_root` (v2 compat).
 *
 * Which roles see a function: admin always; another role needs a select
 * permission on the return table, and then either inferred function
 * permissions (ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS, the default) or an
 * explicit function permission. The role's select filter and limit apply to
 * the rows the function returns, since the rows are read through the
 * return table's view.
 */
import { type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap } from 'graphql';
import type { Catalog, ColumnInfo, FunctionArgInfo, FunctionInfo, SourceInfo } from '../../catalog/types.ts';
import { tableKey } from '../../catalog/types.ts';
import { customizeTypeName } from '../../catalog/stages/customization.ts';
import { capabilitiesOf } from './capabilities.ts';
import { withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { generatedInputObjectType, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import { FUNCTION_ARGS, functionArgsTypeName } from './names.ts';
import type { SchemaTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** Who is asking, and whether function permissions are inferred. */
export interface FunctionAccess {
  readonly role: string;
  readonly isAdmin: boolean;
  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS. */
  readonly inferFunctionPermissions: boolean;
}

/** A function argument seen as a column, so column types give its GraphQL input type. */
export function argAsColumn(a: FunctionArgInfo): ColumnInfo {
  return {
    name: a.name,
    gqlName: a.name,
    dbType: a.dbType,
    elementType: a.elementType,
    typeCategory: a.typeCategory,
    enumLabels: null,
    nullable: true,
    hasDefault: a.hasDefault,
    isGenerated: false,
    description: null,
    enumTable: null,
  };
}

/**
 * The `args` argument of a function-like field (tracked function or
 * computed field): an input object `typeName` whose fields are the
 * arguments; required when some argument has no default. Empty when the
 * function takes no GraphQL arguments.
 */
export function functionArgsArgument(
  typeName: string,
  fnName: string,
  args: readonly FunctionArgInfo[],
  source: SourceInfo,
  types: SchemaTypes,
): GraphQLFieldConfigArgumentMap {
  if (args.length === 0) return {};
  const fields: GraphQLInputFieldConfigMap = {};
  for (const a of args) {
    const rowType = a.typeCategory === 'composite' && a.elementType === null;
    const t = rowType ? types.columns.scalars.forCompositeArgument(source, a.dbType) : types.columns.input(source, argAsColumn(a));
    fields[a.name] = { type: a.hasDefault ? t : nonNull(t) };
  }
  const input = types.inputObject(typeName, () => generatedInputObjectType({ name: typeName, fields }));
  const required = args.some((a) => !a.hasDefault);
  return { [FUNCTION_ARGS]: { type: required ? nonNull(input) : input, description: `input parameters for function "${fnName}"` } };
}

function mayCall(fn: FunctionInfo, access: FunctionAccess): boolean {
  return access.isAdmin || access.inferFunctionPermissions || fn.permissions.includes(access.role);
}

/** The root fields of the functions `access` may call that are exposed as `exposedAs`. */
export function functionRootFields(
  catalog: Catalog,
  views: ReadonlyMap<string, TableView>,
  types: SchemaTypes,
  access: FunctionAccess,
  exposedAs: 'query' | 'mutation',
): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const source of catalog.sources.values()) {
    for (const fn of source.functions?.values() ?? []) {
      if (fn.exposedAs !== exposedAs || !mayCall(fn, access)) continue;
      // A function exposed as a mutation runs in the mutation's transaction.
      if (exposedAs === 'mutation' && !capabilitiesOf(source).mutations) continue;
      const view = views.get(`${source.name}\0${tableKey(fn.returnTable)}`);
      if (view === undefined) continue;
      const t = types.of(view);
      const argsType = customizeTypeName(source.customization, functionArgsTypeName(fn.gqlName));
      const args = { ...functionArgsArgument(argsType, fn.name.name, fn.args, source, types), ...types.listArgs(view) };
      const description = fn.description ?? `execute function "${fn.name.name}" which returns "${fn.returnTable.name}"`;
      fields[fn.rootFields.function] = {
        // v2 compat: a function returning one row (`RETURNS t`, not SETOF) answers an object or null.
        type: fn.returnsSet ? nonNullListOfNonNull(t.object) : t.object,
        description,
        args,
        extensions: withDescriptor<RootFieldDescriptor>({ kind: 'function', table: view, fn }),
      };
      if (exposedAs === 'query' && t.aggregate !== null) {
        fields[fn.rootFields.functionAggregate] = {
          type: nonNull(t.aggregate.aggregate),
          description: fn.description ?? `execute function "${fn.name.name}" and query aggregates on result of table type "${fn.returnTable.name}"`,
          args,
          extensions: withDescriptor<RootFieldDescriptor>({ kind: 'function-aggregate', table: view, fn }),
        };
      }
    }
  }
  return fields;
}

/**
 * Relay (Note [Relay schema] in relay-types.ts): `<fn>_connection(args, after, before, distinct_on,
 * first, last, order_by, where)` of the query functions `access` may call whose return table has a
 * primary key.
 */
export function functionConnectionFields(
  catalog: Catalog,
  views: ReadonlyMap<string, TableView>,
  types: SchemaTypes,
  access: FunctionAccess,
): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const source of catalog.sources.values()) {
    for (const fn of source.functions?.values() ?? []) {
      if (fn.exposedAs !== 'query' || !mayCall(fn, access)) continue;
      const view = views.get(`${source.name}\0${tableKey(fn.returnTable)}`);
      const connection = view === undefined ? null : types.of(view).connection;
      if (view === undefined || connection === null) continue;
      const argsType = customizeTypeName(source.customization, functionArgsTypeName(fn.gqlName));
      fields[`${fn.rootFields.function}_connection`] = {
        type: nonNull(connection),
        description: fn.description ?? `execute function "${fn.name.name}" which returns "${fn.returnTable.name}"`,
        args: { ...functionArgsArgument(argsType, fn.name.name, fn.args, source, types), ...types.connectionArgs(view) },
        extensions: withDescriptor<RootFieldDescriptor>({ kind: 'function-connection', table: view, fn }),
      };
    }
  }
  return fields;
}
