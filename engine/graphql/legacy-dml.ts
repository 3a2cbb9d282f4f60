/**
 * Note [Legacy DML]
 * v2 compat: `/v1/query` (and `/v2/query`) still serve the v1 data
 * operations `select`, `count`, `insert`, `update` and `delete`, with their
 * own argument shapes (database column names, `$eq`-style operators and bare
 * `column: value` equality, `"+col"`/`"-col"` ordering, nested `{name,
 * columns}` relationship selections) and the requesting role's permissions.
 * Rather than a second compiler, each call is rewritten here into one GraphQL
 * operation on the requesting role's own schema (its root fields, column and
 * relationship names, input types), whose user values travel as variables;
 * the operation then takes the GraphQL path (validate, IR with the role's
 * permissions folded in, the source's backend, the plan cache) and its
 * answer is reshaped into v1's (a row list, `{count}`, `{affected_rows,
 * returning}`). So v1 and GraphQL cannot disagree on what a role may read
 * or write, and no SQL is written outside the backend.
 * What v1 has and the role's GraphQL schema does not is refused with
 * `not-supported`: `$mul` and `$default` in update, `_ceq` column
 * comparisons in `where`, `constraint_on` upserts, and sources under the
 * graphql-default naming convention. `count` for a role without
 * aggregations counts the permitted rows it reads.
 */
import {
  getNamedType,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { permissionOperator, connective } from '../catalog/permission-operators.ts';
import type { Catalog, TableInfo } from '../catalog/types.ts';
import { tableKey } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { parseTableName, type TableNameInput } from '../metadata/document.ts';
import type { MutationFieldDescriptor } from './schema/mutation-root.ts';
import { descriptorOf, type RootFieldDescriptor, type TableFieldDescriptor } from './schema/descriptors.ts';

/** The v1 data operations. */
export const LEGACY_DML_TYPES: ReadonlySet<string> = new Set(['select', 'count', 'insert', 'update', 'delete']);

/** One v1 data call rewritten as a GraphQL operation. */
export interface LegacyOperation {
  readonly query: string;
  readonly variables: Record<string, unknown>;
  /** Turns the operation's `data.r` into v1's answer. */
  readonly reshape: (value: unknown) => unknown;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(code: ErrorCode, message: string, path: string): never {
  throw new EngineError(code, message, { path });
}

/** Variables of the operation, each with its GraphQL type. */
class Variables {
  readonly values: Record<string, unknown> = {};
  readonly #defs: string[] = [];
  add(type: GraphQLInputType, value: unknown): string {
    const name = `v${this.#defs.length}`;
    this.#defs.push(`$${name}: ${String(type)}`);
    this.values[name] = value;
    return `$${name}`;
  }
  get definitions(): string {
    return this.#defs.length === 0 ? '' : `(${this.#defs.join(', ')})`;
  }
}

function argType(field: GraphQLField<unknown, unknown>, name: string, path: string): GraphQLInputType {
  const a = field.args.find((x) => x.name === name);
  if (a === undefined) fail(ErrorCode.NotSupported, `"${name}" is not available here`, path);
  return a.type;
}

/** The table a call names, checked to be tracked in the source. */
function trackedTable(catalog: Catalog, args: Json): TableInfo {
  const raw = args['table'];
  if (typeof raw !== 'string' && !isObject(raw)) fail(ErrorCode.ParseFailed, 'key "table" not found', '$.args');
  const name = parseTableName(raw as TableNameInput);
  const sourceName = typeof args['source'] === 'string' ? args['source'] : 'default';
  const info = catalog.sources.get(sourceName)?.tables.get(tableKey(name));
  if (info === undefined)
    fail(ErrorCode.NotExists, `table "${name.schema === 'public' ? name.name : `${name.schema}.${name.name}`}" does not exist`, '$.args.table');
  return info;
}

/** The root field of `root` over `table` whose descriptor has `kind`, or a permission error. */
function rootField<D extends { kind: string; table: { info: TableInfo } }>(
  root: GraphQLObjectType | null | undefined,
  table: TableInfo,
  kinds: readonly string[],
  what: string,
  role: string,
  accept: (d: D) => boolean = () => true,
): { name: string; field: GraphQLField<unknown, unknown>; descriptor: D } | null {
  for (const [name, field] of Object.entries(root?.getFields() ?? {})) {
    const d = descriptorOf<D>(field.extensions);
    if (d !== undefined && kinds.includes(d.kind) && d.table.info === table && accept(d)) return { name, field, descriptor: d };
  }
  if (what === '') return null;
  return fail(ErrorCode.PermissionDenied, `${what} on "${table.name.name}" for role "${role}" is not allowed. `, '$.args');
}

/** The field of `type` for a table column named `column` in the database, if the role sees it. */
function columnField(type: GraphQLObjectType | GraphQLInputObjectType, column: string): string | null {
  for (const [name, f] of Object.entries(type.getFields())) {
    const d = descriptorOf<TableFieldDescriptor>(f.extensions);
    if (d?.kind === 'column' && d.column.name === column) return name;
  }
  return null;
}

function relationshipField(type: GraphQLObjectType | GraphQLInputObjectType, rel: string): GraphQLInputType | GraphQLObjectType | null {
  const f = type.getFields()[rel];
  const d = f === undefined ? undefined : descriptorOf<TableFieldDescriptor>(f.extensions);
  if (f === undefined || d === undefined || (d.kind !== 'object-relationship' && d.kind !== 'array-relationship')) return null;
  return f.type as GraphQLInputType | GraphQLObjectType;
}

/** A column the role may not read: permission-denied if the table has it, not-exists otherwise. */
function unknownColumn(info: TableInfo, column: string, role: string, verb: string, path: string): never {
  if (info.columns.some((c) => c.name === column))
    fail(ErrorCode.PermissionDenied, `role "${role}" does not have permission to ${verb} column "${column}"`, path);
  return fail(ErrorCode.NotExists, `"${column}" does not exist`, path);
}

/** v1 `where` → the GraphQL bool_exp value for `type` (database names → field names, `$op` → `_op`, bare values → `_eq`). */
function boolExp(where: unknown, type: GraphQLInputObjectType, info: TableInfo, role: string, path: string): Json {
  if (!isObject(where)) fail(ErrorCode.ParseFailed, 'expected an object for a boolean expression', path);
  const out: Json = {};
  for (const [key, value] of Object.entries(where)) {
    const p = `${path}.${key}`;
    const conn = connective(key);
    if (conn === 'and' || conn === 'or') {
      if (!Array.isArray(value)) fail(ErrorCode.ParseFailed, `expected a list for "${key}"`, p);
      out[`_${conn}`] = value.map((v, i) => boolExp(v, type, info, role, `${p}[${i}]`));
      continue;
    }
    if (conn === 'not') {
      out['_not'] = boolExp(value, type, info, role, p);
      continue;
    }
    if (conn === 'exists') fail(ErrorCode.NotSupported, '"_exists" is not supported in legacy queries', p);
    const column = columnField(type, key);
    if (column !== null) {
      out[column] = comparison(value, p);
      continue;
    }
    const rel = relationshipField(type, key);
    if (rel !== null) {
      const target = getNamedType(rel) as GraphQLInputObjectType;
      out[key] = boolExp(value, target, info, role, p);
      continue;
    }
    unknownColumn(info, key, role, 'select', p);
  }
  return out;
}

function comparison(value: unknown, path: string): Json {
  if (!isObject(value)) return { _eq: value };
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const op = permissionOperator(k);
    if (op === undefined) fail(ErrorCode.ParseFailed, `unknown operator "${k}"`, `${path}.${k}`);
    if (op.startsWith('c')) fail(ErrorCode.NotSupported, `column comparison "${k}" is not supported in legacy queries`, `${path}.${k}`);
    out[`_${op}`] = v;
  }
  return out;
}

/** v1 `order_by` → GraphQL order_by objects. */
function orderBy(spec: unknown, type: GraphQLInputObjectType, info: TableInfo, role: string, path: string): Json[] {
  const items = Array.isArray(spec) ? spec : [spec];
  return items.map((item, i) => {
    const p = Array.isArray(spec) ? `${path}[${i}]` : path;
    let column: string;
    let dir: 'asc' | 'desc' = 'asc';
    let nulls: string | null = null;
    if (typeof item === 'string') {
      dir = item.startsWith('-') ? 'desc' : 'asc';
      column = item.replace(/^[+-]/, '');
    } else if (isObject(item) && typeof item['column'] === 'string') {
      column = item['column'];
      if (item['type'] === 'desc') dir = 'desc';
      if (item['nulls'] === 'first' || item['nulls'] === 'last') nulls = item['nulls'];
    } else {
      return fail(ErrorCode.ParseFailed, 'expected "+column", "-column" or {column, type, nulls}', p);
    }
    const value = nulls === null ? dir : `${dir}_nulls_${nulls}`;
    // `rel.col`: through object relationships.
    const parts = column.split('.');
    let t = type;
    const keys: string[] = [];
    for (const [j, part] of parts.entries()) {
      if (j < parts.length - 1) {
        const rel = relationshipField(t, part);
        if (rel === null) fail(ErrorCode.NotExists, `"${part}" is not an object relationship`, p);
        keys.push(part);
        t = getNamedType(rel) as GraphQLInputObjectType;
        continue;
      }
      const f = columnField(t, part);
      if (f === null) unknownColumn(info, part, role, 'select', p);
      keys.push(f);
    }
    let out: unknown = value;
    for (const k of keys.reverse()) out = { [k]: out };
    return out as Json;
  });
}

function nonNegativeInt(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(ErrorCode.ValidationFailed, 'expected a non-negative integer', path);
  return v;
}

/** The selection set text of v1 `columns` over the object type `type`. */
function selection(columns: unknown, type: GraphQLObjectType, info: TableInfo, role: string, vars: Variables, path: string): string {
  if (!Array.isArray(columns)) fail(ErrorCode.ParseFailed, 'expected a list for "columns"', path);
  const parts: string[] = [];
  for (const [i, c] of columns.entries()) {
    const p = `${path}[${i}]`;
    if (c === '*') {
      for (const [name, f] of Object.entries(type.getFields())) if (descriptorOf<TableFieldDescriptor>(f.extensions)?.kind === 'column') parts.push(name);
      continue;
    }
    if (typeof c === 'string') {
      const f = columnField(type, c);
      if (f === null) unknownColumn(info, c, role, 'select', p);
      parts.push(f === c ? f : `${c}: ${f}`);
      continue;
    }
    if (!isObject(c) || typeof c['name'] !== 'string') fail(ErrorCode.ParseFailed, 'expected a column name or {name, columns}', p);
    const relName = c['name'];
    const field = type.getFields()[relName];
    const d = field === undefined ? undefined : descriptorOf<TableFieldDescriptor>(field.extensions);
    if (field === undefined || d === undefined || (d.kind !== 'object-relationship' && d.kind !== 'array-relationship')) {
      if (info.relationships.some((r) => r.name === relName))
        fail(ErrorCode.PermissionDenied, `role "${role}" does not have permission to select relationship "${relName}"`, p);
      fail(ErrorCode.NotExists, `"${relName}" does not exist`, p);
    }
    const target = getNamedType(field.type) as GraphQLObjectType;
    const targetInfo = d.rel.target.info;
    const args: string[] = [];
    if (d.kind === 'array-relationship') {
      if (c['where'] !== undefined) {
        const t = argType(field, 'where', p);
        args.push(`where: ${vars.add(t, boolExp(c['where'], getNamedType(t) as GraphQLInputObjectType, targetInfo, role, `${p}.where`))}`);
      }
      if (c['order_by'] !== undefined) {
        const t = argType(field, 'order_by', p);
        args.push(`order_by: ${vars.add(t, orderBy(c['order_by'], getNamedType(t) as GraphQLInputObjectType, targetInfo, role, `${p}.order_by`))}`);
      }
      if (c['limit'] !== undefined) args.push(`limit: ${nonNegativeInt(c['limit'], `${p}.limit`)}`);
      if (c['offset'] !== undefined) args.push(`offset: ${nonNegativeInt(c['offset'], `${p}.offset`)}`);
    }
    const alias = typeof c['alias'] === 'string' ? `${c['alias']}: ` : '';
    const inner = selection(c['columns'] ?? ['*'], target, targetInfo, role, vars, `${p}.columns`);
    parts.push(`${alias}${relName}${args.length === 0 ? '' : `(${args.join(', ')})`} { ${inner} }`);
  }
  if (parts.length === 0) fail(ErrorCode.ValidationFailed, 'no columns to select', path);
  return parts.join(' ');
}

/** The `returning` selection (column names) of a mutation over `type`, or null. */
function returning(spec: unknown, type: GraphQLObjectType, info: TableInfo, role: string): string | null {
  if (spec === undefined || spec === null) return null;
  if (!Array.isArray(spec)) fail(ErrorCode.ParseFailed, 'expected a list for "returning"', '$.args.returning');
  const vars = new Variables();
  return selection(spec, type, info, role, vars, '$.args.returning');
}

/** Database column names of an input object → the input type's field names. */
function inputRow(row: unknown, info: TableInfo, path: string): Json {
  if (!isObject(row)) fail(ErrorCode.ParseFailed, 'expected an object', path);
  const out: Json = {};
  for (const [k, v] of Object.entries(row)) {
    const c = info.columns.find((x) => x.name === k);
    if (c === undefined) fail(ErrorCode.NotExists, `"${k}" does not exist`, `${path}.${k}`);
    out[c.gqlName] = v;
  }
  return out;
}

/** The type of the `returning` field of a mutation response type. */
function returningType(field: GraphQLField<unknown, unknown>): GraphQLObjectType {
  const response = getNamedType(field.type) as GraphQLObjectType;
  return getNamedType(response.getFields()['returning']?.type) as GraphQLObjectType;
}

function mutationAnswer(hasReturning: boolean): (value: unknown) => unknown {
  return (value) => {
    const v = isObject(value) ? value : {};
    return hasReturning ? { affected_rows: v['affected_rows'], returning: v['returning'] } : { affected_rows: v['affected_rows'] };
  };
}

/**
 * Rewrites one v1 data call (`type` one of {@link LEGACY_DML_TYPES}) as a GraphQL operation on
 * `schema`, the requesting role's (Note [Legacy DML]). Throws EngineError with v1 paths.
 */
export function legacyOperation(type: string, argsIn: unknown, schema: GraphQLSchema, catalog: Catalog, role: string): LegacyOperation {
  if (!isObject(argsIn)) fail(ErrorCode.ParseFailed, 'expected an object for "args"', '$.args');
  const args = argsIn;
  const info = trackedTable(catalog, args);
  const vars = new Variables();
  const where = (field: GraphQLField<unknown, unknown>, required: boolean): string | null => {
    const w = args['where'];
    if (w === undefined || w === null) {
      if (required) fail(ErrorCode.ParseFailed, 'key "where" not found', '$.args');
      return null;
    }
    const t = argType(field, 'where', '$.args.where');
    return `where: ${vars.add(t, boolExp(w, getNamedType(t) as GraphQLInputObjectType, info, role, '$.args.where'))}`;
  };
  const op = (kind: 'query' | 'mutation', body: string): string => `${kind}${vars.definitions} { r: ${body} }`;
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();

  if (type === 'select') {
    const root = rootField<Extract<RootFieldDescriptor, { kind: 'select' }>>(query, info, ['select'], 'select', role);
    if (root === null) fail(ErrorCode.PermissionDenied, `select on "${info.name.name}" for role "${role}" is not allowed. `, '$.args');
    const a = [where(root.field, false)];
    if (args['order_by'] !== undefined) {
      const t = argType(root.field, 'order_by', '$.args.order_by');
      a.push(`order_by: ${vars.add(t, orderBy(args['order_by'], getNamedType(t) as GraphQLInputObjectType, info, role, '$.args.order_by'))}`);
    }
    if (args['limit'] !== undefined) a.push(`limit: ${nonNegativeInt(args['limit'], '$.args.limit')}`);
    if (args['offset'] !== undefined) a.push(`offset: ${nonNegativeInt(args['offset'], '$.args.offset')}`);
    const sel = selection(args['columns'] ?? ['*'], getNamedType(root.field.type) as GraphQLObjectType, info, role, vars, '$.args.columns');
    const given = a.filter((x): x is string => x !== null);
    return { query: op('query', `${root.name}${given.length === 0 ? '' : `(${given.join(', ')})`} { ${sel} }`), variables: vars.values, reshape: (v) => v };
  }

  if (type === 'count') {
    const distinct = args['distinct'];
    const columns: string[] = [];
    if (distinct !== undefined && distinct !== null) {
      if (!Array.isArray(distinct) || !distinct.every((c) => typeof c === 'string'))
        fail(ErrorCode.ParseFailed, 'expected a list of columns for "distinct"', '$.args.distinct');
      columns.push(...(distinct as string[]));
    }
    const agg = rootField<Extract<RootFieldDescriptor, { kind: 'select-aggregate' }>>(query, info, ['select-aggregate'], '', role);
    if (agg !== null) {
      const w = where(agg.field, false);
      const rows = getNamedType(agg.field.type) as GraphQLObjectType;
      const fieldsType = getNamedType(rows.getFields()['aggregate']?.type) as GraphQLObjectType;
      const count = fieldsType.getFields()['count'];
      let countArgs = '';
      if (columns.length > 0 && count !== undefined) {
        const t = argType(count, 'columns', '$.args.distinct');
        const selectColumn = getNamedType(t) as GraphQLEnumType;
        const names = columns.map((c, i) => {
          const gql = info.columns.find((x) => x.name === c)?.gqlName;
          if (gql === undefined || selectColumn.getValue(gql) === undefined || selectColumn.getValue(gql) === null)
            unknownColumn(info, c, role, 'select', `$.args.distinct[${i}]`);
          return gql;
        });
        countArgs = `(columns: ${vars.add(t, names)}, distinct: true)`;
      }
      return {
        query: op('query', `${agg.name}${w === null ? '' : `(${w})`} { aggregate { count${countArgs} } }`),
        variables: vars.values,
        reshape: (v) => ({ count: isObject(v) && isObject(v['aggregate']) ? v['aggregate']['count'] : 0 }),
      };
    }
    // No aggregations for this role: count the rows it may read (one key each).
    const root = rootField<Extract<RootFieldDescriptor, { kind: 'select' }>>(query, info, ['select'], 'select', role);
    if (root === null) fail(ErrorCode.PermissionDenied, `select on "${info.name.name}" for role "${role}" is not allowed. `, '$.args');
    const a = [where(root.field, false)];
    if (columns.length > 0) {
      const objectType = getNamedType(root.field.type) as GraphQLObjectType;
      const names = columns.map((c, i) => columnField(objectType, c) ?? unknownColumn(info, c, role, 'select', `$.args.distinct[${i}]`));
      a.push(`distinct_on: ${vars.add(argType(root.field, 'distinct_on', '$.args.distinct'), names)}`);
    }
    const given = a.filter((x): x is string => x !== null);
    return {
      query: op('query', `${root.name}${given.length === 0 ? '' : `(${given.join(', ')})`} { __typename }`),
      variables: vars.values,
      reshape: (v) => ({ count: Array.isArray(v) ? v.length : 0 }),
    };
  }

  if (type === 'insert') {
    const root = rootField<Extract<MutationFieldDescriptor, { kind: 'insert' }>>(mutation, info, ['insert'], 'insert', role, (d) => !d.one);
    if (root === null) fail(ErrorCode.PermissionDenied, `insert on "${info.name.name}" for role "${role}" is not allowed. `, '$.args');
    const objects = args['objects'];
    if (!Array.isArray(objects)) fail(ErrorCode.ParseFailed, 'key "objects" not found', '$.args');
    const rows = objects.map((o, i) => inputRow(o, info, `$.args.objects[${i}]`));
    const a = [`objects: ${vars.add(argType(root.field, 'objects', '$.args.objects'), rows)}`];
    const conflict = args['on_conflict'];
    if (isObject(conflict)) {
      if (conflict['constraint_on'] !== undefined) fail(ErrorCode.NotSupported, '"constraint_on" is not supported; name the constraint', '$.args.on_conflict');
      const action = conflict['action'] ?? 'ignore';
      const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      const value = { constraint: conflict['constraint'], update_columns: action === 'update' ? columns : [] };
      a.push(`on_conflict: ${vars.add(argType(root.field, 'on_conflict', '$.args.on_conflict'), value)}`);
    }
    const ret = returning(args['returning'], returningType(root.field), info, role);
    return {
      query: op('mutation', `${root.name}(${a.join(', ')}) { affected_rows${ret === null ? '' : ` returning { ${ret} }`} }`),
      variables: vars.values,
      reshape: mutationAnswer(ret !== null),
    };
  }

  if (type === 'update') {
    const root = rootField<Extract<MutationFieldDescriptor, { kind: 'update' }>>(mutation, info, ['update'], 'update', role, (d) => !d.byPk);
    if (root === null) fail(ErrorCode.PermissionDenied, `update on "${info.name.name}" for role "${role}" is not allowed. `, '$.args');
    for (const k of ['$mul', '$default']) if (args[k] !== undefined) fail(ErrorCode.NotSupported, `"${k}" is not supported`, `$.args.${k}`);
    const a = [where(root.field, true)];
    for (const [k, gql] of [
      ['$set', '_set'],
      ['$inc', '_inc'],
    ] as const) {
      if (args[k] === undefined) continue;
      a.push(`${gql}: ${vars.add(argType(root.field, gql, `$.args.${k}`), inputRow(args[k], info, `$.args.${k}`))}`);
    }
    const ret = returning(args['returning'], returningType(root.field), info, role);
    const given = a.filter((x): x is string => x !== null);
    return {
      query: op('mutation', `${root.name}(${given.join(', ')}) { affected_rows${ret === null ? '' : ` returning { ${ret} }`} }`),
      variables: vars.values,
      reshape: mutationAnswer(ret !== null),
    };
  }

  if (type === 'delete') {
    const root = rootField<Extract<MutationFieldDescriptor, { kind: 'delete' }>>(mutation, info, ['delete'], 'delete', role, (d) => !d.byPk);
    if (root === null) fail(ErrorCode.PermissionDenied, `delete on "${info.name.name}" for role "${role}" is not allowed. `, '$.args');
    const w = where(root.field, true);
    const ret = returning(args['returning'], returningType(root.field), info, role);
    return {
      query: op('mutation', `${root.name}(${w ?? ''}) { affected_rows${ret === null ? '' : ` returning { ${ret} }`} }`),
      variables: vars.values,
      reshape: mutationAnswer(ret !== null),
    };
  }
  return fail(ErrorCode.NotSupported, `unknown legacy data operation "${type}"`, '$.type');
}
