/**
 * A validated operation → IR root fields. Introspection fields are answered
 * here, at plan time, by graphql-js itself: their result depends only on the
 * role's schema and the operation, so it is computed once and cached with
 * the plan as static JSON.
 */
import {
  execute,
  getNamedType,
  print,
  Kind,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type * as ir from '../../ir/index.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { descriptorOf, type RootFieldDescriptor } from '../schema/descriptors.ts';
import { collectFields } from './collect-fields.ts';
import { readView, useStructural, type ToIrContext, type VariableUse } from './context.ts';
import type { RoleAccess } from '../schema/role-access.ts';
import { valueEncoding } from '../schema/scalars.ts';
import { astInput, leafParam } from './input.ts';
import { toIrFunctionField } from './function.ts';
import { toIrMutationField } from './mutation.ts';
import { toIrStreamField } from './stream.ts';
import { toIrRemoteField } from './remote.ts';
import { toIrConnection, toIrNodeField } from './connection.ts';
import { plainSource, toIrRowSource } from './row-source.ts';
import { toIrAggregate, toIrFields } from './select.ts';
import { argumentOf } from './collect-fields.ts';
import { andAll } from '../../ir/bool-exp.ts';
import { toIrActionField } from './action.ts';
import type { ActionFieldDescriptor } from '../schema/action-root-fields.ts';

/** The IR of an operation and how it used each variable. */
export interface OperationIr {
  readonly fields: readonly ir.OperationField[];
  /** Joins to run on the steps' results (Note [Remote joins] in execute/remote-join.ts). */
  readonly joins: readonly ir.Join[];
  readonly variableUse: ReadonlyMap<string, VariableUse>;
}

/** Options of {@link toIrOperation}. */
export interface ToIrOptions {
  readonly schema: GraphQLSchema;
  /** The requesting role's compiled permissions (RoleSchema.access); `schema` may be shared with other roles. */
  readonly access: RoleAccess;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly stringifyNumericTypes: boolean;
  /** The client-facing schema introspection answers from, when it differs (graphql-default naming). */
  readonly introspectionSchema?: GraphQLSchema;
  /** The role may introspect: Note [Introspection disabled for roles]. */
  readonly introspection: boolean;
}

/**
 * Note [Introspection disabled for roles]
 * `graphql_schema_introspection.disabled_for_roles` (v2's
 * `set_graphql_schema_introspection_options`) refuses `__schema` and `__type`
 * to the roles it names, with `access-denied` and the field's path, whatever
 * else the operation selects; admin is never refused (the console and the
 * tools introspect as admin). v2 CE stores the setting without applying it;
 * its Cloud and EE editions refuse the introspection fields of a listed role,
 * and a project that set it expects that, so this engine applies it. A root
 * `__typename` is answered: it names the root type and nothing else, and
 * clients add it on their own. The check is made when the operation is
 * translated, on a plan-cache miss: a refused operation is never cached, and a
 * plan cached before the setting changed belongs to an older catalog version
 * (Note [Plan cache keys]), so a hit pays nothing for it.
 */
const INTROSPECTION_DISABLED = 'introspection is disabled for this role';

function introspect(ctx: ToIrContext, opts: ToIrOptions, alias: string, nodes: readonly FieldNode[]): string {
  // Every variable an introspection field reads shapes its (static) answer.
  for (const n of nodes) {
    visit(n, {
      Variable: (v) => {
        useStructural(ctx, v.name.value);
      },
    });
  }
  const op: OperationDefinitionNode = { ...opts.operation, selectionSet: { kind: Kind.SELECTION_SET, selections: nodes } };
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [op, ...ctx.fragments.values()] };
  const result = execute({ schema: opts.introspectionSchema ?? opts.schema, document, variableValues: opts.variables });
  if (result instanceof Promise || result.errors !== undefined || result.data === undefined || result.data === null) {
    throw new EngineError(ErrorCode.ValidationFailed, 'introspection query failed', { path: `$.selectionSet.${alias}` });
  }
  return JSON.stringify(sortedByName(result.data[alias] ?? null));
}

/**
 * Note [Introspection order]
 * v2 lists a type's fields, a field's arguments and the schema's types by name (its table
 * columns and root fields come out sorted, not in table or contributor order). Engine builds
 * its types in declaration order, which printed schemas and schema sharing rely on, and sorts
 * only the introspection answer: every `fields`, `args` and `types` list whose entries carry
 * a selected `name` (as every introspection query selects; an aliased key is left as asked).
 * `inputFields` and `enumValues` keep their order, as v2's do.
 */
const SORTED_LISTS = new Set(['fields', 'args', 'types']);

function byName(a: unknown, b: unknown): number {
  const x = (a as { name: string }).name;
  const y = (b as { name: string }).name;
  return x < y ? -1 : x > y ? 1 : 0;
}

function sortedByName(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedByName);
  if (typeof v !== 'object' || v === null) return v;
  const o = v as Record<string, unknown>;
  for (const [k, x] of Object.entries(o)) {
    const items = sortedByName(x);
    const sortable = SORTED_LISTS.has(k) && Array.isArray(items) && items.every((i) => typeof (i as { name?: unknown } | null)?.name === 'string');
    o[k] = sortable ? [...(items as unknown[])].sort(byName) : items;
  }
  return o;
}

/** Translates the operation's root fields. */
export function toIrOperation(opts: ToIrOptions): OperationIr {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of opts.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const ctx: ToIrContext = {
    schema: opts.schema,
    access: opts.access,
    fragments,
    variables: opts.variables,
    variableUse: new Map(),
    stringifyNumericTypes: opts.stringifyNumericTypes,
    depth: { selection: 0, boolExp: 0 },
    operation: opts.operation,
    remoteJoins: [],
    toIrFields,
  };
  const kind = opts.operation.operation;
  let requestQuery: string | null = null;
  const root = (
    kind === 'subscription' ? opts.schema.getSubscriptionType() : kind === 'mutation' ? opts.schema.getMutationType() : opts.schema.getQueryType()
  ) as GraphQLObjectType;
  const fields = rootFieldsOf(root, [opts.operation.selectionSet], '$');
  return { fields, variableUse: ctx.variableUse, joins: ctx.remoteJoins ?? [] };

  /** The root fields selected on `root` (the operation's root type, or a source's namespace type). */
  function rootFieldsOf(root: GraphQLObjectType, selectionSets: readonly (SelectionSetNode | undefined)[], at: string): ir.OperationField[] {
    const defs = root.getFields();
    const fields: ir.OperationField[] = [];
    for (const [alias, nodes] of collectFields(root, selectionSets, ctx)) {
      const name = nodes[0]?.name.value ?? alias;
      const path = `${at}.selectionSet.${alias}`;
      if (name === '__typename') {
        fields.push({ kind: 'static', alias, json: JSON.stringify(root.name) });
        continue;
      }
      if (name === '__schema' || name === '__type') {
        if (!opts.introspection) throw new EngineError(ErrorCode.AccessDenied, INTROSPECTION_DISABLED, { path });
        fields.push({ kind: 'static', alias, json: introspect(ctx, opts, alias, nodes) });
        continue;
      }
      const def = defs[name];
      const d = def === undefined ? undefined : descriptorOf<RootFieldDescriptor | ActionFieldDescriptor>(def.extensions);
      if (def !== undefined && d?.kind === 'namespace') {
        const inner = rootFieldsOf(
          getNamedType(def.type) as GraphQLObjectType,
          nodes.map((n) => n.selectionSet),
          path,
        );
        fields.push({ kind: 'namespace', alias, source: d.source, fields: inner.filter((f): f is ir.RootField => f.kind !== 'action') });
        continue;
      }
      if (def !== undefined && d?.kind === 'action') {
        requestQuery ??= print(opts.document);
        fields.push(toIrActionField(d, def, nodes, ctx, alias, path, kind === 'mutation' ? 'mutation' : 'query', requestQuery));
        continue;
      }
      if (def !== undefined && (d?.kind === 'function' || d?.kind === 'function-aggregate' || d?.kind === 'function-connection')) {
        fields.push(toIrFunctionField(d, def, nodes, ctx, alias, path));
        continue;
      }
      if (def !== undefined && (d?.kind === 'remote' || d?.kind === 'remote-namespace')) {
        fields.push(toIrRemoteField(d, def, nodes, ctx, alias, path, opts.operation));
        continue;
      }
      if (kind === 'mutation' && def !== undefined) {
        fields.push(toIrMutationField(def, nodes, ctx, alias, path));
        continue;
      }
      if (def === undefined || d === undefined) {
        throw new EngineError(ErrorCode.ValidationFailed, `field '${name}' not found in type: '${root.name}'`, { path });
      }
      switch (d.kind) {
        case 'static':
          fields.push({ kind: 'static', alias, json: d.json });
          break;
        case 'select': {
          const view = readView(ctx, d.table);
          const from = toIrRowSource(view, def, nodes, ctx, path);
          const selected = toIrFields(view, getNamedType(def.type) as GraphQLObjectType, nodes, ctx, path);
          fields.push({ kind: 'select', alias, source: view.source.name, select: { from, fields: selected, cardinality: 'many' } });
          break;
        }
        case 'select-by-pk': {
          const view = readView(ctx, d.table);
          const keys: ir.BoolExp[] = [];
          for (const pk of view.info.primaryKey) {
            const column = view.columns.find((c) => c.name === pk);
            const arg = def.args.find((a) => a.name === column?.gqlName);
            const node = arg === undefined ? undefined : argumentOf(nodes, arg.name);
            if (column === undefined || arg === undefined || node === undefined) continue;
            const encoding = valueEncoding(view.source, column.dbType);
            const right = leafParam(astInput(node), arg.type, encoding, ctx, false, `${path}.args.${arg.name}`);
            if (right !== null) keys.push({ kind: 'compare', left: { column: pk, cast: null }, op: 'eq', right, dbType: column.dbType });
          }
          const selected = toIrFields(view, getNamedType(def.type) as GraphQLObjectType, nodes, ctx, path);
          const from = plainSource(view, andAll(keys));
          fields.push({ kind: 'select', alias, source: view.source.name, select: { from, fields: selected, cardinality: 'one' } });
          break;
        }
        case 'select-stream':
          fields.push(toIrStreamField(readView(ctx, d.table), def, nodes, ctx, alias, path));
          break;
        case 'select-connection': {
          const view = readView(ctx, d.table);
          fields.push({ kind: 'connection', alias, source: view.source.name, select: toIrConnection(view, def, nodes, ctx, path) });
          break;
        }
        case 'node':
          fields.push(toIrNodeField(nodes, ctx, alias, path));
          break;
        case 'select-aggregate':
          fields.push({ kind: 'aggregate', alias, source: d.table.source.name, select: toIrAggregate(readView(ctx, d.table), def, nodes, ctx, path) });
          break;
        default:
          break;
      }
    }
    return fields;
  }
}
