/**
 * Relay (`/v1beta1/relay`): `<t>_connection` and `<rel>_connection` fields →
 * ir.ConnectionSelect, and `node(id:)` → a one-row select of the table the
 * id names. Note [Relay schema] in schema/relay-types.ts; Note [Relay ids and
 * cursors] in ir/relay-id.ts.
 */
import { getNamedType, GraphQLString, Kind, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { andAll } from '../../ir/bool-exp.ts';
import { cursorJson, decodeNodeId } from '../../ir/relay-id.ts';
import { backendOf } from '../../backends/registry.ts';
import { V2_PG_DEFAULT_SCHEMA } from '../../model/document.ts';
import { RELAY } from '../schema/relay-types.ts';
import { typeNames } from '../schema/scalars.ts';
import type { TableView } from '../schema/table-view.ts';
import { argumentOf, selectedFields } from './collect-fields.ts';
import { readView, useStructural, type ToIrContext } from './context.ts';
import { astInput, leafParam } from './input.ts';
import type { KeyPath } from './order-by.ts';
import { objectTypeOf, plainSource, rowCountArg, toIrRowSource } from './row-source.ts';

/** An `after`/`before` cursor: a literal is checked now, a variable when bound. */
function cursor(nodes: readonly FieldNode[], name: string, ctx: ToIrContext, path: string): ir.ParamSource | null {
  const node = argumentOf(nodes, name);
  if (node === undefined) return null;
  const p = leafParam(astInput(node), GraphQLString, 'relay-cursor', ctx, true, `${path}.args.${name}`);
  if (p !== null && p.kind === 'const') return { kind: 'const', value: cursorJson(p.value, `${path}.args.${name}`) };
  return p;
}

/** A connection field over rows of `view` (the requesting role's view), `extra` joined into its filter. */
export function toIrConnection(
  view: TableView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
  extra: ir.BoolExp | null = null,
): ir.ConnectionSelect {
  const paths: KeyPath[] = [];
  const from = toIrRowSource(view, field, nodes, ctx, path, extra, paths);
  // v2: the primary key columns the order lacks come last, so every row's position and cursor are unique.
  const ordered = new Set(from.orderBy.flatMap((o) => (o.target.kind === 'column' ? [o.target.column] : [])));
  const orderBy = [...from.orderBy];
  for (const pk of view.info.primaryKey) {
    if (ordered.has(pk)) continue;
    orderBy.push({ target: { kind: 'column', column: pk }, direction: 'asc', nulls: 'last' });
    paths.push({ path: [pk], dbType: view.info.columns.find((c) => c.name === pk)?.dbType ?? null });
  }
  const after = cursor(nodes, RELAY.after, ctx, path);
  const before = cursor(nodes, RELAY.before, ctx, path);
  if (after !== null && before !== null) throw new EngineError(ErrorCode.ValidationFailed, '"after" and "before" are not allowed at once', { path });
  // `first`/`last` are row counts as `limit` is (Note [Row counts]).
  const first = rowCountArg(nodes, RELAY.first, ctx, path);
  const last = rowCountArg(nodes, RELAY.last, ctx, path);
  if (first !== null && last !== null) throw new EngineError(ErrorCode.ValidationFailed, '"first" and "last" are not allowed at once', { path });
  const split: ir.ConnectionSplit | null = after !== null ? { kind: 'after', cursor: after } : before !== null ? { kind: 'before', cursor: before } : null;
  const slice: ir.ConnectionSlice | null = first !== null ? { kind: 'first', count: first } : last !== null ? { kind: 'last', count: last } : null;
  const type = getNamedType(field.type) as GraphQLObjectType;
  return {
    from: { ...from, orderBy },
    cursor: paths.map((p, index) => ({ index, path: p.path, dbType: p.dbType })),
    split,
    slice,
    fields: connectionFields(view, type, nodes, ctx, path),
  };
}

function connectionFields(view: TableView, type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext, path: string): ir.ConnectionField[] {
  const out: ir.ConnectionField[] = [];
  for (const { alias, name, def, nodes: fieldNodes } of selectedFields(type, nodes, ctx)) {
    if (name === '__typename') out.push({ kind: 'typename', alias, typename: type.name });
    else if (name === RELAY.pageInfo && def !== undefined) out.push({ kind: 'page-info', alias, fields: pageInfoFields(objectTypeOf(def), fieldNodes, ctx) });
    else if (name === RELAY.edges && def !== undefined)
      out.push({ kind: 'edges', alias, fields: edgeFields(view, objectTypeOf(def), fieldNodes, ctx, `${path}.selectionSet.${alias}`) });
  }
  return out;
}

const PAGE_INFO: Readonly<Record<string, 'has-next-page' | 'has-previous-page' | 'start-cursor' | 'end-cursor'>> = {
  [RELAY.hasNextPage]: 'has-next-page',
  [RELAY.hasPreviousPage]: 'has-previous-page',
  [RELAY.startCursor]: 'start-cursor',
  [RELAY.endCursor]: 'end-cursor',
};

function pageInfoFields(type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext): ir.PageInfoField[] {
  const out: ir.PageInfoField[] = [];
  for (const { alias, name } of selectedFields(type, nodes, ctx)) {
    if (name === '__typename') out.push({ kind: 'typename', alias, typename: type.name });
    const kind = PAGE_INFO[name];
    if (kind !== undefined) out.push({ kind, alias });
  }
  return out;
}

function edgeFields(view: TableView, type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext, path: string): ir.EdgeField[] {
  const out: ir.EdgeField[] = [];
  for (const { alias, name, def, nodes: fieldNodes } of selectedFields(type, nodes, ctx)) {
    if (name === '__typename') out.push({ kind: 'typename', alias, typename: type.name });
    else if (name === RELAY.cursor) out.push({ kind: 'cursor', alias });
    else if (name === RELAY.node && def !== undefined)
      out.push({ kind: 'node', alias, fields: ctx.toIrFields(view, objectTypeOf(def), fieldNodes, ctx, `${path}.selectionSet.${alias}`) });
  }
  return out;
}

/**
 * `node(id:)`: the row the id names, as a one-row select of its table with
 * the fields selected on that table's type (inline fragments on it, or on
 * `Node`). The table read depends on the id, so a variable id is structural.
 */
export function toIrNodeField(nodes: readonly FieldNode[], ctx: ToIrContext, alias: string, path: string): ir.RootField {
  const idPath = `${path}.args.${RELAY.id}`;
  const node = argumentOf(nodes, RELAY.id);
  const value =
    node === undefined ? undefined : node.kind === Kind.VARIABLE ? useStructural(ctx, node.name.value) : node.kind === Kind.STRING ? node.value : undefined;
  const id = decodeNodeId(value, idPath);
  const invalid = (why: string): EngineError => new EngineError(ErrorCode.ValidationFailed, `invalid node id: ${why}`, { path: idPath });
  // A version 2 id without a schema names a table in its source's default schema (v2 decodes it as the backend's table name).
  const ofSource = id.source === null ? undefined : [...ctx.access.tables.values()].find((v) => v.source.name === id.source);
  const schema = id.schema ?? (ofSource === undefined ? V2_PG_DEFAULT_SCHEMA : backendOf(ofSource.source).naming.defaultSchema);
  const matches = [...ctx.access.tables.values()].filter(
    (v) => v.info.name.schema === schema && v.info.name.name === id.name && (id.source === null || v.source.name === id.source) && v.info.primaryKey.length > 0,
  );
  const shape = matches[0];
  if (shape === undefined) throw invalid(`no such table found: ${JSON.stringify(`${schema}.${id.name}`)}`);
  if (matches.length > 1) {
    throw invalid(
      `this V1 node id matches more than one table across different sources: ${schema}.${id.name} exists in sources ${matches.map((m) => m.source.name).join(', ')}`,
    );
  }
  const view = readView(ctx, shape);
  const type = ctx.schema.getType(view.names.object) as GraphQLObjectType | undefined;
  // A table whose type is not a Node for this role has no node id (Note [Relay ids of unselectable keys] in relay-types.ts).
  if (type === undefined || !type.getInterfaces().some((i) => i.name === 'Node'))
    throw invalid(`no such table found: ${JSON.stringify(`${schema}.${id.name}`)}`);
  const pk = view.info.primaryKey;
  if (id.values.length < pk.length) throw invalid(`primary key columns ${JSON.stringify(pk.slice(id.values.length))} are missing`);
  if (id.values.length > pk.length) throw invalid(`unexpected column values ${JSON.stringify(id.values.slice(pk.length))}`);
  const keys: ir.BoolExp[] = pk.map((column, i) => {
    const dbType = view.info.columns.find((c) => c.name === column)?.dbType ?? typeNames(view.source).text;
    const v = id.values[i];
    if (v === null || typeof v === 'object') throw invalid(`value of column ${JSON.stringify(column)} in node id is not a scalar`);
    return { kind: 'compare', left: { column, cast: null }, op: 'eq', right: { kind: 'const', value: v }, dbType };
  });
  // The fields selected on `Node` (id, __typename) and on the table's type (fragments on either, collected by toIrFields).
  const fields = ctx.toIrFields(view, type, nodes, ctx, path);
  return { kind: 'select', alias, source: view.source.name, select: { from: plainSource(view, andAll(keys)), fields, cardinality: 'one' } };
}
