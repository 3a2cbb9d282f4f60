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
 * What v1 has and the role's GraphQL schema cannot say travels beside the
 * operation as an IR patch (`LegacyOperation.patch`, applied after the
 * operation's IR is made, the request then not cached): `$mul` and
 * `$default` in update (sent as `_inc: {col: 0}` / `_set: {col: null}`
 * placeholders, which check that the role may update those columns, then
 * made `mul` / `default` operators), and a `where` with column comparisons
 * (`$ceq`, `_cgt`…, also `["$", col]`) or `_exists`, compiled as a
 * permission expression is and conjoined to the role's filter, after every
 * column it names was checked readable for the role; the tables it reaches
 * (relationships, `_exists`) get the role's row filter added, as GraphQL's
 * `where` does, so it cannot see rows the role's permissions hide. `constraint_on`
 * (v1's columns of the conflict's unique constraint) names the constraint.
 * Sources under the graphql-default naming convention are refused
 * (`not-supported`). `count` for a role without aggregations counts the
 * permitted rows it reads.
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
import { operatorHint, permissionOperator, connective } from '../catalog/permission-operators.ts';
import type { Catalog, TableInfo } from '../catalog/types.ts';
import { tableKey } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { formatTableName, parseTableName, V2_PG_DEFAULT_SCHEMA, type TableNameInput } from '../model/document.ts';
import { backendOf } from '../backends/registry.ts';
import type { MutationFieldDescriptor } from './schema/mutation-root.ts';
import { descriptorOf, type RootFieldDescriptor, type TableFieldDescriptor } from './schema/descriptors.ts';
import type * as ir from '../ir/index.ts';
import { andAll } from '../ir/bool-exp.ts';
import { toIrPermissionFilter } from './to-ir/permission-bool-exp.ts';

/** The v1 data operations. */
export const LEGACY_DML_TYPES: ReadonlySet<string> = new Set(['select', 'count', 'insert', 'update', 'delete']);

/** One v1 data call rewritten as a GraphQL operation. */
export interface LegacyOperation {
  readonly query: string;
  readonly variables: Record<string, unknown>;
  /** Turns the operation's `data.r` into v1's answer. */
  readonly reshape: (value: unknown) => unknown;
  /** What the operation cannot say, applied to its IR root field (Note [Legacy DML]); the request is then not cached. */
  readonly patch?: (f: ir.OperationField) => ir.OperationField;
}

/** How a v1 `where` is checked: the role, and whether it needs the IR path (column comparisons, `_exists`). */
/** The role's row filter of a table (null: every row), or undefined when the role may not read it; null for admin. */
export type FilterOf = ((table: ir.QualifiedName) => ir.BoolExp | null | undefined) | null;

interface WhereCheck {
  readonly catalog: Catalog;
  readonly role: string;
  readonly filterOf: FilterOf;
  /** The bool_exp type of the table the expression started on (`["$", col]` operands). */
  readonly root: GraphQLInputObjectType;
  needsIr: boolean;
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
  const sourceName = typeof args['source'] === 'string' ? args['source'] : 'default';
  const source = catalog.sources.get(sourceName);
  // Named as the source's backend names tables; a source that does not exist is postgres' (v2's legacy DML is postgres').
  const name = source === undefined ? parseTableName(raw as TableNameInput, V2_PG_DEFAULT_SCHEMA) : backendOf(source).naming.parse(raw as TableNameInput);
  const info = source?.tables.get(tableKey(name));
  if (info === undefined) {
    const shown = source === undefined ? formatTableName(name, V2_PG_DEFAULT_SCHEMA) : backendOf(source).naming.format(name);
    fail(ErrorCode.NotExists, `table "${shown}" does not exist`, '$.args.table');
  }
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
function boolExp(where: unknown, type: GraphQLInputObjectType, info: TableInfo, role: string, path: string, check: WhereCheck | null = null): Json {
  if (!isObject(where)) fail(ErrorCode.ParseFailed, 'expected an object for a boolean expression', path);
  const out: Json = {};
  for (const [key, value] of Object.entries(where)) {
    const p = `${path}.${key}`;
    const conn = connective(key);
    if (conn === 'and' || conn === 'or') {
      if (!Array.isArray(value)) fail(ErrorCode.ParseFailed, `expected a list for "${key}"`, p);
      out[`_${conn}`] = value.map((v, i) => boolExp(v, type, info, role, `${p}[${i}]`, check));
      continue;
    }
    if (conn === 'not') {
      out['_not'] = boolExp(value, type, info, role, p, check);
      continue;
    }
    if (conn === 'exists') {
      if (check === null) fail(ErrorCode.NotSupported, '"_exists" is not supported here', p);
      existsCheck(value, check, p);
      continue;
    }
    const column = columnField(type, key);
    if (column !== null) {
      out[column] = comparison(value, p, type, check, info);
      continue;
    }
    const rel = relationshipField(type, key);
    if (rel !== null) {
      const target = getNamedType(rel) as GraphQLInputObjectType;
      out[key] = boolExp(value, target, info, role, p, check);
      continue;
    }
    unknownColumn(info, key, role, 'select', p);
  }
  return out;
}

function comparison(value: unknown, path: string, type: GraphQLInputObjectType, check: WhereCheck | null, info: TableInfo): Json {
  if (!isObject(value)) return { _eq: value };
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const op = permissionOperator(k);
    if (op === undefined) fail(ErrorCode.ParseFailed, `unknown operator "${k}"${operatorHint(k)}`, `${path}.${k}`);
    if (COLUMN_OPS.has(op)) {
      if (check === null) fail(ErrorCode.NotSupported, `column comparison "${k}" is not supported here`, `${path}.${k}`);
      // `"col"` names a column of this table, `["$", "col"]` one of the table the expression started on.
      const rooted = Array.isArray(v) && v.length === 2 && v[0] === '$' && typeof v[1] === 'string';
      const col = rooted ? (v[1] as string) : v;
      if (typeof col !== 'string') fail(ErrorCode.ParseFailed, `expected a column name for "${k}"`, `${path}.${k}`);
      if (columnField(rooted ? check.root : type, col) === null) unknownColumn(info, col, check.role, 'select', `${path}.${k}`);
      check.needsIr = true;
      continue;
    }
    out[`_${op}`] = v;
  }
  return out;
}

/** v1's column comparison operators (`$ceq`, `_cgt`…). */
const COLUMN_OPS: ReadonlySet<string> = new Set(['ceq', 'cneq', 'cgt', 'cgte', 'clt', 'clte']);

const DENY: ir.BoolExp = { kind: 'or', items: [] };

/**
 * `e` with the role's row filter conjoined in every table it reaches (relationships, `_exists`),
 * as GraphQL's `where` reads related rows (a permission expression's compiler adds none).
 */
function withRoleFilters(e: ir.BoolExp, filterOf: NonNullable<FilterOf>): ir.BoolExp {
  const rec = (x: ir.BoolExp): ir.BoolExp => withRoleFilters(x, filterOf);
  switch (e.kind) {
    case 'and':
    case 'or':
      return { ...e, items: e.items.map(rec) };
    case 'not':
    case 'holds':
    case 'permission-root':
      return { ...e, item: rec(e.item) };
    case 'relationship':
    case 'exists': {
      const filter = filterOf(e.target);
      const where = rec(e.where);
      return { ...e, where: filter === undefined ? DENY : filter === null ? where : andAll([filter, where]) };
    }
    default:
      return e;
  }
}

/** `_exists: {_table, _where}`: the table is tracked and readable by the role, unfiltered. */
function existsCheck(value: unknown, check: WhereCheck, path: string): void {
  if (!isObject(value) || value['_table'] === undefined) fail(ErrorCode.ParseFailed, 'expected {"_table", "_where"} for "_exists"', path);
  // v2 compat: the legacy DML is postgres' (its `_table` names a table in `public` when bare).
  const name = parseTableName(value['_table'] as TableNameInput, V2_PG_DEFAULT_SCHEMA);
  let target: TableInfo | undefined;
  for (const source of check.catalog.sources.values()) target ??= source.tables.get(tableKey(name));
  if (target === undefined) fail(ErrorCode.NotExists, `table "${name.name}" does not exist`, `${path}._table`);
  if (check.filterOf !== null && check.filterOf(target.name) === undefined) {
    fail(ErrorCode.PermissionDenied, `role "${check.role}" does not have permission to select table "${target.name.name}"`, `${path}._table`);
  }
  for (const col of columnsNamed(value['_where'])) {
    const visible = check.filterOf === null || (target.permissions.get(check.role)?.select?.columns ?? []).includes(col);
    if (target.columns.some((c) => c.name === col) && !visible) unknownColumn(target, col, check.role, 'select', `${path}._where`);
  }
  check.needsIr = true;
}

/** The keys of an expression that may be column names (all but operators and connectives), at every depth. */
function columnsNamed(exp: unknown): string[] {
  if (Array.isArray(exp)) return exp.flatMap(columnsNamed);
  if (!isObject(exp)) return [];
  return Object.entries(exp).flatMap(([k, v]) => [...(k.startsWith('_') || k.startsWith('$') ? [] : [k]), ...columnsNamed(v)]);
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
export function legacyOperation(
  type: string,
  argsIn: unknown,
  schema: GraphQLSchema,
  catalog: Catalog,
  role: string,
  filterOf: FilterOf = null,
): LegacyOperation {
  if (!isObject(argsIn)) fail(ErrorCode.ParseFailed, 'expected an object for "args"', '$.args');
  const args = argsIn;
  const info = trackedTable(catalog, args);
  const vars = new Variables();
  // The v1 `where` as IR, when it says what the role's bool_exp cannot (column comparisons, `_exists`).
  let irWhere: ir.BoolExp | null = null;
  const where = (field: GraphQLField<unknown, unknown>, required: boolean): string | null => {
    const w = args['where'];
    if (w === undefined || w === null) {
      if (required) fail(ErrorCode.ParseFailed, 'key "where" not found', '$.args');
      return null;
    }
    const t = argType(field, 'where', '$.args.where');
    const boolType = getNamedType(t) as GraphQLInputObjectType;
    const check: WhereCheck = { catalog, role, filterOf, root: boolType, needsIr: false };
    const value = boolExp(w, boolType, info, role, '$.args.where', check);
    if (!check.needsIr) return `where: ${vars.add(t, value)}`;
    const source = catalog.sources.get(info.source);
    if (source === undefined) fail(ErrorCode.NotExists, `source "${info.source}" does not exist`, '$.args');
    const compiled = toIrPermissionFilter(w, info, source);
    irWhere = filterOf === null ? compiled : withRoleFilters(compiled, filterOf);
    return required ? `where: ${vars.add(t, {})}` : null;
  };
  const withWhere = (): ((f: ir.OperationField) => ir.OperationField) | undefined => {
    const w = irWhere;
    return w === null ? undefined : (f) => andWhere(f, w);
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
    return {
      query: op('query', `${root.name}${given.length === 0 ? '' : `(${given.join(', ')})`} { ${sel} }`),
      variables: vars.values,
      reshape: (v) => v,
      ...patchOf(withWhere()),
    };
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
        ...patchOf(withWhere()),
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
      ...patchOf(withWhere()),
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
      const action = conflict['action'] ?? 'ignore';
      const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      const constraint = conflict['constraint_on'] !== undefined ? constraintOn(info, conflict['constraint_on']) : conflict['constraint'];
      const value = { constraint, update_columns: action === 'update' ? columns : [] };
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
    const a = [where(root.field, true)];
    // `$mul` and `$default` go as placeholders the role's update permission checks (Note [Legacy DML]).
    const mul = args['$mul'] === undefined ? null : inputRow(args['$mul'], info, '$.args.$mul');
    const defaults = defaultColumns(args['$default'], info);
    for (const [k, gql, extra] of [
      ['$set', '_set', defaults === null ? {} : Object.fromEntries(defaults.map((c) => [c, null]))],
      ['$inc', '_inc', mul === null ? {} : Object.fromEntries(Object.keys(mul).map((c) => [c, 0]))],
    ] as const) {
      const given = args[k] === undefined ? {} : inputRow(args[k], info, `$.args.${k}`);
      for (const c of Object.keys(extra)) {
        if (c in given) fail(ErrorCode.ValidationFailed, `column found in multiple operators: "${c}"`, `$.args.${k}`);
      }
      const row = { ...given, ...extra };
      if (args[k] === undefined && Object.keys(extra).length === 0) continue;
      const path = Object.keys(extra).length > 0 && args[k] === undefined ? (k === '$set' ? '$.args.$default' : '$.args.$mul') : `$.args.${k}`;
      a.push(`${gql}: ${vars.add(argType(root.field, gql, path), row)}`);
    }
    const ret = returning(args['returning'], returningType(root.field), info, role);
    const given = a.filter((x): x is string => x !== null);
    const patches = [withWhere(), mul === null && defaults === null ? undefined : (f: ir.OperationField) => legacyOps(f, mul, defaults)].filter(
      (x): x is (f: ir.OperationField) => ir.OperationField => x !== undefined,
    );
    return {
      query: op('mutation', `${root.name}(${given.join(', ')}) { affected_rows${ret === null ? '' : ` returning { ${ret} }`} }`),
      variables: vars.values,
      reshape: mutationAnswer(ret !== null),
      ...patchOf(patches.length === 0 ? undefined : (f) => patches.reduce((x, p) => p(x), f)),
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
      ...patchOf(withWhere()),
    };
  }
  return fail(ErrorCode.NotSupported, `unknown legacy data operation "${type}"`, '$.type');
}

function patchOf(patch: ((f: ir.OperationField) => ir.OperationField) | undefined): { patch?: (f: ir.OperationField) => ir.OperationField } {
  return patch === undefined ? {} : { patch };
}

/** `f` with `w` conjoined to the rows it reads or writes. */
function andWhere(f: ir.OperationField, w: ir.BoolExp): ir.OperationField {
  if (f.kind === 'select' || f.kind === 'aggregate') {
    const from = f.select.from;
    return f.kind === 'select'
      ? { ...f, select: { ...f.select, from: { ...from, where: andAll([from.where, w]) } } }
      : { ...f, select: { ...f.select, from: { ...from, where: andAll([from.where, w]) } } };
  }
  if (f.kind !== 'mutation') return f;
  const m = f.mutation;
  if (m.kind === 'update') return { ...f, mutation: { ...m, update: { ...m.update, where: andAll([m.update.where, w]) } } };
  if (m.kind === 'delete') return { ...f, mutation: { ...m, delete: { ...m.delete, where: andAll([m.delete.where, w]) } } };
  return f;
}

/** The `$default` columns (database names), checked to exist; null when not given. */
function defaultColumns(spec: unknown, info: TableInfo): string[] | null {
  if (spec === undefined || spec === null) return null;
  if (!Array.isArray(spec) || !spec.every((c) => typeof c === 'string'))
    fail(ErrorCode.ParseFailed, 'expected a list of columns for "$default"', '$.args.$default');
  return (spec as string[]).map((c, i) => {
    const col = info.columns.find((x) => x.name === c);
    if (col === undefined) fail(ErrorCode.NotExists, `"${c}" does not exist`, `$.args.$default[${i}]`);
    return col.gqlName;
  });
}

/**
 * The update with its `$mul` / `$default` placeholders (in `_inc` / `_set`, keyed by GraphQL
 * names) made `mul` / `default` operators: `mul` takes the `$mul` values.
 */
function legacyOps(f: ir.OperationField, mul: Json | null, defaults: readonly string[] | null): ir.OperationField {
  if (f.kind !== 'mutation' || f.mutation.kind !== 'update') return f;
  const u = f.mutation.update;
  const ops: ir.UpdateOp[] = [];
  for (const op of u.ops) {
    const moved =
      op.kind === 'inc' && mul !== null
        ? (c: ir.InputColumn): boolean => c.key in mul
        : op.kind === 'set' && defaults !== null
          ? (c: ir.InputColumn): boolean => defaults.includes(c.key)
          : null;
    if (moved === null) {
      ops.push(op);
      continue;
    }
    const kept = op.columns.filter((c) => !moved(c));
    if (kept.length > 0) ops.push({ ...op, columns: kept });
    const taken = op.columns.filter(moved);
    if (op.kind === 'inc') ops.push({ kind: 'mul', value: { kind: 'json-doc', doc: { kind: 'const', value: mul } }, columns: taken });
    else ops.push({ kind: 'default', value: { kind: 'const', value: null }, columns: taken });
  }
  return { ...f, mutation: { ...f.mutation, update: { ...u, ops } } };
}

/** v1 `constraint_on`: the unique or primary key constraint on exactly these columns. */
function constraintOn(info: TableInfo, spec: unknown): string {
  const cols = typeof spec === 'string' ? [spec] : spec;
  if (!Array.isArray(cols) || !cols.every((c) => typeof c === 'string')) {
    fail(ErrorCode.ParseFailed, 'expected a column or a list of columns for "constraint_on"', '$.args.on_conflict.constraint_on');
  }
  const want = [...(cols as string[])].sort().join(',');
  const all: Array<readonly [string, readonly string[]]> = [
    ...(info.primaryKey.length > 0 ? [[info.primaryKeyName ?? `${info.name.name}_pkey`, info.primaryKey] as const] : []),
    ...info.uniqueConstraints.map((u) => [u.name, u.columns] as const),
  ];
  const hit = all.find(([, c]) => [...c].sort().join(',') === want);
  if (hit === undefined) {
    fail(
      ErrorCode.NotExists,
      `no unique or primary key constraint on columns ${(cols as string[]).map((c) => `"${c}"`).join(', ')}`,
      '$.args.on_conflict.constraint_on',
    );
  }
  return hit[0];
}
