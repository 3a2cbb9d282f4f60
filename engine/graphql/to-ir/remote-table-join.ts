/**
 * A relationship to a table selected in a result → an ir.TableJoin: a
 * remote type's `to_source` relationship, or a table's `to_source`
 * relationship to a table of another source (cross-source join): the table's rows under the caller's
 * select permission, filtered to the join keys of every parent object of the
 * response level (bound at run time), their key columns selected to match
 * them back (Note [Remote joins] in execute/remote-join.ts). Remote
 * relationships met in the rows' selection become the join's nested joins.
 */
import { getNamedType, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { andAll } from '../../ir/bool-exp.ts';
import { joinColumnKey } from '../../ir/remote.ts';
import type { ColumnInfo } from '../../catalog/types.ts';
import type { RemoteTypeFieldDescriptor } from '../schema/descriptors.ts';
import { scalarInfo, typeNames } from '../schema/scalars.ts';
import type { SourceRelationshipView, TableView } from '../schema/table-view.ts';
import { remoteKeysVisible } from './visibility.ts';
import { readView, type ToIrContext } from './context.ts';
import { plainSource, toIrRowSource } from './row-source.ts';

/** Join numbers, unique within one operation (key variables and read aliases are named by them). */
const counters = new WeakMap<ToIrContext, { n: number }>();

/** The response keys of a to-ir path (`$.selectionSet.a.selectionSet.b` → [a, b]). */
export function pathKeys(path: string): string[] {
  return path.split('.selectionSet.').slice(1);
}

/** The joins added to `ctx` while `f` runs, taken out of it with their paths made relative to `path`. */
export function joinsMadeBy<T>(ctx: ToIrContext, path: string, f: () => T): { result: T; nested: ir.Join[] } {
  const list = ctx.remoteJoins;
  const before = list?.length ?? 0;
  const result = f();
  const depth = pathKeys(path).length;
  const nested = (list?.splice(before) ?? []).map((j) => ({ ...j, path: j.path.slice(depth) }));
  return { result, nested };
}

/** The join of relationship `d` selected as `alias` on the objects at `at` (response keys), `path` being the field's to-ir path. */
export function toIrTableJoin(
  d: RemoteTypeFieldDescriptor,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  at: readonly string[],
  path: string,
): ir.TableJoin {
  const rel = d.rel;
  if (rel.kind !== 'to_source' || d.target === undefined) throw new Error('toIrTableJoin: not a relationship to a table');
  const mapping = rel.mapping.map(([field, column]) => [joinColumnKey(field), column] as const);
  return tableJoin(d.target, rel.type, mapping, def, nodes, ctx, alias, at, path);
}

/**
 * A table's `to_source` relationship (to a table of another source)
 * selected as `alias` in the rows at `at`: the rows carry their join columns
 * under the hidden keys (select.ts), and the target's rows are read by a
 * join like a remote type's (Note [Remote joins] in execute/remote-join.ts).
 */
export function toIrSourceJoin(
  rel: SourceRelationshipView,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  at: readonly string[],
  path: string,
): ir.TableJoin {
  const mapping = rel.info.columnMapping.map(([lhs, rhs]) => [joinColumnKey(lhs), rhs] as const);
  return tableJoin(rel.target, rel.info.kind, mapping, def, nodes, ctx, alias, at, path);
}

const INT16_MAX = 32767n;
const INT32_MAX = 2147483647n;

/** How join keys matched against `column` compare: as values of its type (Note [Join keys by type] in execute/join-keys.ts). */
export function joinKeyType(source: TableView['source'], column: ColumnInfo | undefined): ir.JoinKeyType {
  if (column === undefined) return 'text';
  // The literal class of the backend's description: integers by their range (PostgreSQL's money is not a decimal: it compares as text).
  const literal = scalarInfo(source, column.dbType).literal;
  switch (literal.kind) {
    case 'integer':
      return literal.max <= INT16_MAX ? 'int16' : literal.max <= INT32_MAX ? 'int32' : 'int64';
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'json':
      return 'json';
    case 'uuid':
      return 'uuid';
    default:
      return 'text';
  }
}

/**
 * `distinct_on` of one read for every parent: distinct per join key, the
 * keys leading the order as DISTINCT ON needs (the user's order, or the
 * distinct columns as v2 sorts without one, follows within each parent).
 */
function perParent(from: ir.RowSource, mapping: ReadonlyArray<readonly [key: string, column: string]>): ir.RowSource {
  if (from.distinctOn.length === 0) return from;
  const asc = (column: string): ir.OrderBy => ({ target: { kind: 'column', column }, direction: 'asc', nulls: 'last' });
  const keys = mapping.map(([, column]) => column);
  return {
    ...from,
    distinctOn: [...keys, ...from.distinctOn],
    orderBy: [...keys.map(asc), ...(from.orderBy.length > 0 ? from.orderBy : from.distinctOn.map(asc))],
  };
}

/** The join to `shape`'s rows whose `column`s match the parent objects' hidden `key`s. */
function tableJoin(
  shape: TableView,
  type: 'object' | 'array',
  mapping: ReadonlyArray<readonly [key: string, column: string]>,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  at: readonly string[],
  path: string,
): ir.TableJoin {
  const view = readView(ctx, shape);
  const counter = counters.get(ctx) ?? { n: 0 };
  counters.set(ctx, counter);
  const n = counter.n++;
  const keyVariables = mapping.map((_, i) => `__engine_join_${n}_${i}`);
  const keyAliases = mapping.map((_, i) => `__key${i}`);
  const keys: ir.BoolExp[] = mapping.map(([, column], i) => ({
    kind: 'compare',
    left: { column, cast: null },
    op: 'in',
    right: { kind: 'variable', name: keyVariables[i] as string, encoding: 'plain', allowNull: false },
    dbType: view.info.columns.find((c) => c.name === column)?.dbType ?? typeNames(view.source).text,
  }));
  // Inherited roles: a row whose join cell the role may not see is not related (Note [Cells a sort key reads]).
  const keyFilter = andAll([...keys, remoteKeysVisible(view, mapping)]);
  const from = perParent(type === 'object' ? plainSource(view, keyFilter) : toIrRowSource(view, def, nodes, ctx, path, keyFilter), mapping);
  const { result: selected, nested } = joinsMadeBy(ctx, path, () => ctx.toIrFields(view, getNamedType(def.type) as GraphQLObjectType, nodes, ctx, path));
  const keyFields: ir.Field[] = mapping.map(([, column], i) => ({ kind: 'column', alias: keyAliases[i] as string, column, asText: true }));
  return {
    kind: 'table',
    path: at,
    alias,
    type,
    source: view.source.name,
    columns: mapping,
    keyTypes: mapping.map(([, column]) =>
      joinKeyType(
        view.source,
        view.info.columns.find((c) => c.name === column),
      ),
    ),
    keyVariables,
    keyAliases,
    // Limits and offsets are per parent object: applied when rows are matched back, not in SQL.
    read: {
      kind: 'select',
      alias: `j${n}`,
      source: view.source.name,
      select: { from: { ...from, limit: null, offset: null, limitCap: null }, fields: [...selected, ...keyFields], cardinality: 'many' },
    },
    limit: from.limit,
    offset: from.offset,
    limitCap: from.limitCap,
    nested,
  };
}
