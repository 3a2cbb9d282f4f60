/**
 * `insert_<t>(objects, on_conflict)` / `insert_<t>_one(object, on_conflict)`
 * → ir.Insert: the input rows as one JSON document, and per table level the
 * partitions of rows by the columns they give (see Note [Mutation inputs as
 * JSON] in ir/mutation.ts), nested levels for relationships, `on_conflict`,
 * and the role's insert permission (columns by the schema, presets, check).
 */
import { getNamedType, Kind, print, type GraphQLEnumType, type GraphQLInputObjectType, type ValueNode } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { andAll, isTrue } from '../../ir/bool-exp.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { constraintsOf } from '../schema/mutation-types.ts';
import type { MutationView } from '../schema/mutation-view.ts';
import { MUTATION } from '../schema/names.ts';
import { toIrBoolExp } from './bool-exp.ts';
import type { ToIrContext } from './context.ts';
import { enumValue, listItems, objectFields, type Input } from './input.ts';
import { docParam, inputDoc, isNullShape, shapeFields, shapeItems, valueDoc } from './mutation-input.ts';

function fail(message: string, path: string): never {
  throw new EngineError(ErrorCode.ValidationFailed, message, { path });
}

/** `on_conflict {constraint, update_columns, where}` → IR, with the role's update filter on the existing row. */
function toIrOnConflict(input: Input, view: MutationView, type: GraphQLInputObjectType, ctx: ToIrContext, path: string): ir.OnConflict | null {
  const defs = type.getFields();
  let constraint: string | null = null;
  const updateColumns: string[] = [];
  let where: ir.BoolExp | null = null;
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    if (def === undefined) continue;
    if (name === MUTATION.constraint) constraint = enumValue(value, getNamedType(def.type) as GraphQLEnumType, ctx);
    else if (name === MUTATION.updateColumns) {
      for (const item of listItems(value, ctx)) {
        const c = enumValue(item, getNamedType(def.type) as GraphQLEnumType, ctx);
        // v2 compat: `_PLACEHOLDER` (the enum of a role that may update no column) names no column.
        if (c === null) fail('erroneous column name', path);
        if (!updateColumns.includes(c)) updateColumns.push(c);
      }
    } else if (name === MUTATION.where && view.select !== null) {
      where = toIrBoolExp(value, view.select, getNamedType(def.type) as GraphQLInputObjectType, ctx, `${path}.${name}`);
    }
  }
  const columns = constraint === null ? undefined : constraintsOf(view).get(constraint);
  if (columns === undefined) return null;
  return upsertOf(view, columns, updateColumns, where);
}

/** v2's MSSQL `if_matched {match_columns, update_columns, where}` → IR (Note [MSSQL if_matched] in schema/mutation-types.ts). */
function toIrIfMatched(input: Input, view: MutationView, ctx: ToIrContext, path: string): ir.OnConflict | null {
  const t = ctx.schema.getType(view.names.ifMatched);
  if (t === undefined || t === null) return null;
  const defs = (t as GraphQLInputObjectType).getFields();
  const lists: Record<string, string[]> = { [MUTATION.matchColumns]: [], [MUTATION.updateColumns]: [] };
  let where: ir.BoolExp | null = null;
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    if (def === undefined) continue;
    const list = lists[name];
    if (list !== undefined) {
      for (const item of listItems(value, ctx)) {
        const c = enumValue(item, getNamedType(def.type) as GraphQLEnumType, ctx);
        // v2 compat: `_PLACEHOLDER` (the enum of a role that may update no column) names no column.
        if (c === null) fail('erroneous column name', path);
        if (!list.includes(c)) list.push(c);
      }
    } else if (name === MUTATION.where && view.select !== null) {
      where = toIrBoolExp(value, view.select, getNamedType(def.type) as GraphQLInputObjectType, ctx, `${path}.${name}`);
    }
  }
  return upsertOf(view, lists[MUTATION.matchColumns] ?? [], lists[MUTATION.updateColumns] ?? [], where);
}

/** An upsert matching on `columns`, under the role's update permission. */
function upsertOf(view: MutationView, columns: readonly string[], updateColumns: readonly string[], where: ir.BoolExp | null): ir.OnConflict {
  const w = andAll([view.update?.filter ?? null, where]);
  // v2 compat: the row an upsert updates is under the update permission: its filter (above), presets and check.
  const presets = view.update?.presets ?? null;
  const check = view.update?.check ?? null;
  return {
    constraintColumns: columns,
    updateColumns: presets === null ? updateColumns : updateColumns.filter((c) => !presets.columns.includes(c)),
    where: isTrue(w) ? null : w,
    presets: updateColumns.length === 0 ? null : presets,
    check: updateColumns.length === 0 || check === null || isTrue(check) ? null : check,
  };
}

function inputText(i: Input): string {
  return i.kind === 'ast' ? print(i.node) : JSON.stringify(i.value);
}

/**
 * Whether a nested relationship's rows are inserted before their owner (an object relationship
 * through the owner's foreign key) rather than after it with the owner's key (array relationships,
 * and v2 compat: object relationships whose foreign key is on the target, or manual ones with
 * `insertion_order: after_parent`).
 */
function isParent(rel: MutationView['insertRelationships'][number]): boolean {
  return rel.info.kind === 'object' && rel.info.viaLocalForeignKey;
}

/** `"a", "b"`: column names as v2 lists them in messages. */
function quotedKeys(columns: readonly ir.InputColumn[]): string {
  return columns.map((c) => JSON.stringify(c.key)).join(', ');
}

/** What the rows of one level were seen to contain. */
interface LevelRows {
  readonly rows: Input[];
  /** Each row's v2 error path (`$.selectionSet.insert_author.args.objects[0].articles.data[1]`). */
  readonly paths: string[];
  /** The `on_conflict` input of the relationship these rows come from (first seen), or of the root field. */
  onConflict: Input | null;
}

/**
 * Translates one level: `rows` are the input objects of `view`'s table at
 * this place; `linked` are the columns the enclosing relationship sets.
 */
function toIrLevel(view: MutationView, level: LevelRows, linked: readonly string[], ctx: ToIrContext, path: string): ir.InsertLevel {
  const insert = view.insert;
  if (insert === null) fail(`no insert permission on table "${view.info.name.name}"`, path);
  const inputColumns: ir.InputColumn[] = insert.columns.map((c) => ({ column: c.name, key: c.gqlName }));
  const byKey = new Map(insert.columns.map((c) => [c.gqlName, c]));
  const rels = new Map(view.insertRelationships.map((r) => [r.info.name, r]));
  const partitions = new Map<string, ir.InsertPartition>();
  const nested = new Map<string, LevelRows>();
  level.rows.forEach((row, i) => {
    const p = level.paths[i] ?? `${path}[${i}]`;
    const columns: ir.InputColumn[] = [];
    const parents: string[] = [];
    const objectRels: [string, readonly string[]][] = [];
    for (const [key, value] of shapeFields(row, ctx)) {
      const column = byKey.get(key);
      if (column !== undefined) {
        columns.push({ column: column.name, key });
        continue;
      }
      const rel = rels.get(key);
      if (rel === undefined || isNullShape(value, ctx)) continue;
      let rows: Input[] = [];
      let onConflict: Input | null = null;
      for (const [k, v] of shapeFields(value, ctx)) {
        if (k === MUTATION.data) rows = rel.info.kind === 'object' ? [v] : shapeItems(v, ctx);
        if (k === MUTATION.onConflict && !isNullShape(v, ctx)) onConflict = v;
      }
      const dataPath = `${p}.${key}.${MUTATION.data}`;
      const paths = rel.info.kind === 'object' ? [dataPath] : rows.map((_, j) => `${dataPath}[${j}]`);
      if (isParent(rel)) {
        parents.push(key);
        objectRels.push([key, rel.info.columnMapping.map(([local]) => local)]);
      }
      const seen = nested.get(key);
      if (seen === undefined) nested.set(key, { rows: [...rows], paths: [...paths], onConflict });
      else {
        seen.rows.push(...rows);
        seen.paths.push(...paths);
        if (seen.onConflict === null) seen.onConflict = onConflict;
        else if (onConflict !== null && inputText(onConflict) !== inputText(seen.onConflict)) {
          // One INSERT per level: its rows share one ON CONFLICT clause.
          throw new EngineError(ErrorCode.NotSupported, `every row must give the same on_conflict for relationship "${key}"`, { path: p });
        }
      }
    }
    // v2 compat: columns whose value a relationship decides may not be given as well, in v2's words.
    const fromParent = columns.filter((c) => linked.includes(c.column));
    if (fromParent.length > 0) fail(`cannot insert ${quotedKeys(fromParent)} columns as their values are already being determined by parent insert`, p);
    for (const [rel, locals] of objectRels) {
      const clash = columns.filter((c) => locals.includes(c.column));
      if (clash.length > 0) fail(`cannot insert object relationship "${rel}" as ${quotedKeys(clash)} column values are already determined`, `${p}.${rel}`);
    }
    columns.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    parents.sort();
    const sig = JSON.stringify([columns.map((c) => c.key), parents]);
    if (!partitions.has(sig)) partitions.set(sig, { columns, parents });
  });
  const parents: ir.NestedInsert[] = [];
  const children: ir.NestedInsert[] = [];
  for (const [key, rows] of nested) {
    const rel = rels.get(key);
    if (rel === undefined) continue;
    const mapping = rel.info.columnMapping;
    const parent = isParent(rel);
    const childLinked = parent ? [] : mapping.map(([, remote]) => remote);
    const lvl = toIrLevel(rel.target, rows, childLinked, ctx, `${path}.${key}.data`);
    const n: ir.NestedInsert = { key, name: rel.info.name, mapping, level: lvl, ...(rel.info.kind === 'object' && !parent ? { one: true } : {}) };
    (parent ? parents : children).push(n);
  }
  const onConflictType = level.onConflict === null ? null : conflictType(view, ctx);
  const onConflict =
    level.onConflict === null || onConflictType === null ? null : toIrOnConflict(level.onConflict, view, onConflictType, ctx, `${path}.on_conflict`);
  // No rows: one partition giving nothing, whose INSERT reads no row.
  if (partitions.size === 0) partitions.set('', { columns: [], parents: [] });
  return {
    table: view.info.name,
    primaryKey: view.info.primaryKey,
    inputColumns,
    partitions: [...partitions.values()],
    presets: insert.presets,
    onConflict,
    check: insert.check,
    parents,
    children,
  };
}

function conflictType(view: MutationView, ctx: ToIrContext): GraphQLInputObjectType | null {
  const t = ctx.schema.getType(view.names.onConflict);
  return t === undefined || t === null ? null : (t as GraphQLInputObjectType);
}

/** The JSON document of rows of `view`: column values and nested relationship data, on_conflict left out. */
function rowsDoc(input: Input, view: MutationView, ctx: ToIrContext): ir.JsonDoc {
  const byKey = new Map((view.insert?.columns ?? []).map((c) => [c.gqlName, c]));
  const rels = new Map(view.insertRelationships.map((r) => [r.info.name, r]));
  return inputDoc(input, ctx, (name: string, value: ValueNode): ir.JsonDoc | null => {
    const column = byKey.get(name);
    if (column !== undefined) {
      const t = ctx.schema.getType(view.names.insertInput) as GraphQLInputObjectType;
      const fieldType = t.getFields()[name]?.type;
      return fieldType === undefined ? null : valueDoc(value, fieldType, ctx);
    }
    const rel = rels.get(name);
    if (rel === undefined) return null;
    return inputDoc({ kind: 'ast', node: value }, ctx, (k, v) => {
      if (k !== MUTATION.data) return null;
      const rows = rowsDoc({ kind: 'ast', node: v }, rel.target, ctx);
      return rel.info.kind === 'array' ? asList(v, rows) : rows;
    });
  });
}

/** GraphQL input coercion: a single object written where a list of rows goes is a list of one. */
function asList(node: ValueNode, doc: ir.JsonDoc): ir.JsonDoc {
  return node.kind === Kind.OBJECT ? { kind: 'array', items: [doc] } : doc;
}

/**
 * Translates an insert field; `rows` is the `objects` list (or the `_one` object), `onConflict` its
 * argument, `ifMatched` its `if_matched` argument (the backend offers at most one of the two).
 */
export function toIrInsert(
  view: MutationView,
  rowsInput: Input,
  one: boolean,
  onConflict: Input | null,
  ifMatched: Input | null,
  output: ir.MutationOutput,
  ctx: ToIrContext,
  path: string,
): ir.Insert {
  const rows = one ? [rowsInput] : shapeItems(rowsInput, ctx);
  const argPath = `${path}.args.${one ? MUTATION.object : MUTATION.objects}`;
  const paths = one ? [argPath] : rows.map((_, i) => `${argPath}[${i}]`);
  const level = toIrLevel(view, { rows, paths, onConflict }, [], ctx, argPath);
  const matched = ifMatched === null || isNullShape(ifMatched, ctx) ? null : toIrIfMatched(ifMatched, view, ctx, `${path}.args.${MUTATION.ifMatched}`);
  const root = matched === null ? level : { ...level, onConflict: matched };
  const doc = rowsDoc(rowsInput, view, ctx);
  return {
    rows: docParam(one ? { kind: 'array', items: [doc] } : rowsInput.kind === 'ast' ? asList(rowsInput.node, doc) : doc),
    root,
    primaryKey: view.info.primaryKey,
    output,
  };
}
