/**
 * `update_<t>`, `update_<t>_by_pk`, `update_<t>_many` and `delete_<t>`,
 * `delete_<t>_by_pk` → ir.Update / ir.Delete, with the role's update
 * permission (columns by the schema, filter, check, presets) and delete
 * filter folded in.
 */
import { getNamedType, type FieldNode, type GraphQLField, type GraphQLInputObjectType, type GraphQLInputType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { andAll } from '../../ir/bool-exp.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import type { MutationView } from '../schema/mutation-view.ts';
import { MUTATION, UPDATE_OPS } from '../schema/names.ts';
import { UPDATE_OP_NAMES } from '../schema/mutation-types.ts';
import { valueEncoding } from '../schema/scalars.ts';
import { toIrBoolExp } from './bool-exp.ts';
import { argumentOf } from './collect-fields.ts';
import type { ToIrContext } from './context.ts';
import { astInput, isNullInput, leafParam, listItems, objectFields, type Input } from './input.ts';
import { docParam, inputDoc, shapeFields, valueDoc } from './mutation-input.ts';

/** Named arguments of one update: from the field's arguments or from one `<t>_updates` entry. */
export type ArgLookup = (name: string) => Input | undefined;

/** The lookup of a field's own arguments. */
export function fieldArgs(nodes: readonly FieldNode[]): ArgLookup {
  return (name) => {
    const node = argumentOf(nodes, name);
    return node === undefined ? undefined : astInput(node);
  };
}

function inputTypeOf(type: GraphQLInputType): GraphQLInputObjectType {
  return getNamedType(type) as GraphQLInputObjectType;
}

/** `where` of a mutation field on `view` (the argument's type is the role's `<t>_bool_exp`). */
function userWhere(view: MutationView, input: Input, type: GraphQLInputType, ctx: ToIrContext, path: string): ir.BoolExp {
  if (view.select === null) return { kind: 'or', items: [] };
  return toIrBoolExp(input, view.select, inputTypeOf(type), ctx, path);
}

/** `pk_columns` / the `_by_pk` arguments: equality on each primary key column. */
export function pkWhere(
  view: MutationView,
  fields: ReadonlyArray<readonly [string, Input]>,
  types: (name: string) => GraphQLInputType | undefined,
  ctx: ToIrContext,
  path: string,
): ir.BoolExp {
  const parts: ir.BoolExp[] = [];
  for (const pk of view.info.primaryKey) {
    const column = view.select?.columns.find((c) => c.name === pk);
    const value = fields.find(([k]) => k === column?.gqlName)?.[1];
    const type = column === undefined ? undefined : types(column.gqlName);
    if (column === undefined || value === undefined || type === undefined) continue;
    const encoding = valueEncoding(view.source, column.dbType);
    const right = leafParam(value, type, encoding, ctx, false, `${path}.${column.gqlName}`);
    if (right !== null) parts.push({ kind: 'compare', left: { column: pk, cast: null }, op: 'eq', right, dbType: column.dbType });
  }
  return andAll(parts);
}

function toIrOps(view: MutationView, args: ArgLookup, types: (name: string) => GraphQLInputType | undefined, ctx: ToIrContext, path: string): ir.UpdateOp[] {
  const cols = new Map((view.update?.columns ?? []).map((c) => [c.gqlName, c]));
  const ops: ir.UpdateOp[] = [];
  for (const kind of UPDATE_OP_NAMES) {
    const input = args(UPDATE_OPS[kind]);
    const argType = types(UPDATE_OPS[kind]);
    if (input === undefined || argType === undefined || isNullInput(input, ctx)) continue;
    const fieldTypes = inputTypeOf(argType).getFields();
    const columns: ir.InputColumn[] = [];
    for (const [key] of shapeFields(input, ctx)) {
      const c = cols.get(key);
      if (c === undefined) continue;
      // v2 compat: one column, one operator (SQL cannot assign a column twice).
      if (ops.some((o) => o.columns.some((x) => x.column === c.name))) {
        throw new EngineError(ErrorCode.ValidationFailed, `column found in multiple operators: "${key}"`, { path: `${path}.args.${UPDATE_OPS[kind]}` });
      }
      columns.push({ column: c.name, key });
    }
    if (columns.length === 0) continue;
    const doc = inputDoc(input, ctx, (name, node) => {
      const t = fieldTypes[name]?.type;
      return t === undefined ? null : valueDoc(node, t, ctx);
    });
    ops.push({ kind, value: docParam(doc), columns });
  }
  return ops;
}

/**
 * One update: `args` gives the operator arguments and `where` (or the
 * primary key condition in `keyWhere`); `types` their declared types.
 */
export function toIrUpdate(
  view: MutationView,
  args: ArgLookup,
  types: (name: string) => GraphQLInputType | undefined,
  keyWhere: ir.BoolExp | null,
  output: ir.MutationOutput,
  ctx: ToIrContext,
  path: string,
): ir.Update {
  const update = view.update;
  const ops = toIrOps(view, args, types, ctx, path);
  if (update === null || (ops.length === 0 && update.presets === null)) {
    throw new EngineError(
      ErrorCode.ValidationFailed,
      'at least any one of _set, _inc, _append, _prepend, _delete_key, _delete_elem, _delete_at_path is expected',
      { path },
    );
  }
  let where = keyWhere;
  if (where === null) {
    const w = args(MUTATION.where);
    const t = types(MUTATION.where);
    where = w === undefined || t === undefined ? null : userWhere(view, w, t, ctx, `${path}.args.where`);
  }
  return {
    table: view.info.name,
    where: andAll([update.filter, where]),
    ops,
    presets: update.presets,
    check: update.check,
    output,
  };
}

/** `update_<t>_many(updates: [...])`: one update per entry, in order. */
export function toIrUpdateMany(
  view: MutationView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  output: ir.MutationOutput,
  ctx: ToIrContext,
  path: string,
): ir.Update[] {
  const node = argumentOf(nodes, MUTATION.updates);
  const arg = field.args.find((a) => a.name === MUTATION.updates);
  if (node === undefined || arg === undefined) return [];
  const entryType = inputTypeOf(arg.type);
  const defs = entryType.getFields();
  const types = (name: string): GraphQLInputType | undefined => defs[name]?.type;
  // The number of entries decides the statements, so a variable here is structural (listItems).
  const entries = listItems(astInput(node), ctx).map((e) => objectFields(e, ctx));
  return entries.map((fields, i) => {
    const lookup: ArgLookup = (name) => fields.find(([k]) => k === name)?.[1];
    return toIrUpdate(view, lookup, types, null, output, ctx, `${path}.args.updates[${i}]`);
  });
}

/** `delete_<t>(where)` / `delete_<t>_by_pk(...)`. */
export function toIrDelete(view: MutationView, where: ir.BoolExp, output: ir.MutationOutput): ir.Delete {
  return { table: view.info.name, where: andAll([view.delete?.filter ?? null, where]), output };
}

/** `where` of `delete_<t>` / `update_<t>`. */
export function toIrMutationWhere(
  view: MutationView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
): ir.BoolExp {
  const node = argumentOf(nodes, MUTATION.where);
  const arg = field.args.find((a) => a.name === MUTATION.where);
  if (node === undefined || arg === undefined) return { kind: 'or', items: [] };
  return userWhere(view, astInput(node), arg.type, ctx, `${path}.args.where`);
}
