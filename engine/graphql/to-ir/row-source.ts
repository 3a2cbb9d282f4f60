/**
 * The row source of a table selection: the role's permission (filter,
 * limit cap, redaction) and the field's `where, order_by, distinct_on,
 * limit, offset`. Shared by select.ts, connection.ts, remote-table-join.ts
 * and function.ts; it translates no nested selection, so none of them
 * imports another to build one (nested selections go through
 * `ctx.toIrFields`, see context.ts).
 */
import {
  getNamedType,
  GraphQLInt,
  type FieldNode,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
} from 'graphql';
import type * as ir from '../../ir/index.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { negativeRowCount } from '../../errors/row-count.ts';
import { andAll, isTrue } from '../../ir/bool-exp.ts';
import { ARG } from '../schema/names.ts';
import type { TableView } from '../schema/table-view.ts';
import { toIrBoolExp } from './bool-exp.ts';
import { argumentOf } from './collect-fields.ts';
import type { ToIrContext } from './context.ts';
import { astInput, enumValue, leafParam, listItems } from './input.ts';
import { toIrOrderBy, type KeyPath } from './order-by.ts';

function whereOf(filters: readonly (ir.BoolExp | null)[]): ir.BoolExp | null {
  const w = andAll(filters);
  return isTrue(w) ? null : w;
}

/** Rows of `view` with no arguments (object relationships, by_pk before its key). */
export function plainSource(view: TableView, extra: ir.BoolExp | null = null): ir.RowSource {
  return {
    table: view.info.name,
    where: whereOf([view.filter, extra]),
    ...(view.redact === null ? {} : { redact: view.redact }),
    orderBy: [],
    distinctOn: [],
    limit: null,
    limitCap: null,
    offset: null,
  };
}

/** The row source of a list field: its `where, order_by, distinct_on, limit, offset` and the permission. */
export function toIrRowSource(
  view: TableView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
  extra: ir.BoolExp | null = null,
  keyPaths: KeyPath[] | null = null,
): ir.RowSource {
  const argType = (name: string): GraphQLInputObjectType | GraphQLEnumType | undefined => {
    const arg = field.args.find((a) => a.name === name);
    return arg === undefined ? undefined : (getNamedType(arg.type) as GraphQLInputObjectType | GraphQLEnumType);
  };
  const whereNode = argumentOf(nodes, ARG.where);
  const whereType = argType(ARG.where) as GraphQLInputObjectType;
  const userWhere = whereNode === undefined ? null : toIrBoolExp(astInput(whereNode), view, whereType, ctx, `${path}.args.where`);
  const orderNode = argumentOf(nodes, ARG.orderBy);
  const orderBy = orderNode === undefined ? [] : toIrOrderBy(astInput(orderNode), argType(ARG.orderBy) as GraphQLInputObjectType, view, ctx, keyPaths);
  const distinctNode = argumentOf(nodes, ARG.distinctOn);
  const distinctType = argType(ARG.distinctOn) as GraphQLEnumType;
  const distinctOn =
    distinctNode === undefined
      ? []
      : listItems(astInput(distinctNode), ctx)
          .map((i) => enumValue(i, distinctType, ctx))
          .filter((c): c is string => c !== null);
  checkDistinctOn(distinctOn, orderBy, path);
  return {
    table: view.info.name,
    where: whereOf([view.filter, extra, userWhere]),
    ...(view.redact === null ? {} : { redact: view.redact }),
    orderBy,
    distinctOn,
    limit: rowCountArg(nodes, ARG.limit, ctx, path),
    limitCap: view.limitCap,
    offset: rowCountArg(nodes, ARG.offset, ctx, path),
  };
}

/**
 * A row-count argument (`limit`, `offset`; Relay's `first`, `last`) of the field at `path`, null
 * when absent: a literal must not be negative, a variable is checked when bound (Note [Row counts]).
 */
export function rowCountArg(nodes: readonly FieldNode[], name: string, ctx: ToIrContext, path: string): ir.ParamSource | null {
  const node = argumentOf(nodes, name);
  if (node === undefined) return null;
  const argPath = `${path}.args.${name}`;
  const p = leafParam(astInput(node), GraphQLInt, 'row-count', ctx, true, argPath);
  if (p !== null && p.kind === 'const' && typeof p.value === 'number' && p.value < 0) throw negativeRowCount(argPath);
  return p;
}

/*
 * Note [distinct_on leads order_by]
 * PostgreSQL requires the DISTINCT ON expressions to be the leftmost ORDER BY
 * expressions. v2 refuses a request whose `order_by` starts with other keys
 * (a validation error) rather than reordering the sort behind the client's
 * back, which would change which row of each group is kept. Without any
 * `order_by` there is nothing to contradict, and the translator sorts by the
 * distinct columns itself (as v2 does).
 */
function checkDistinctOn(distinctOn: readonly string[], orderBy: readonly ir.OrderBy[], path: string): void {
  if (distinctOn.length === 0 || orderBy.length === 0) return;
  const lead = orderBy.slice(0, distinctOn.length);
  const cols = new Set(lead.map((o) => (o.target.kind === 'column' ? o.target.column : null)));
  const covered = lead.length === distinctOn.length && lead.every((o) => o.target.kind === 'column') && distinctOn.every((c) => cols.has(c));
  if (!covered) {
    // v2 compat: reported at the field's arguments (v2 checks them together).
    throw new EngineError(ErrorCode.ValidationFailed, '"distinct_on" columns must match initial "order_by" columns', { path: `${path}.args` });
  }
}

/** The object type a field returns (through lists and non-nulls): the type its selection selects on. */
export function objectTypeOf(field: GraphQLField<unknown, unknown>): GraphQLObjectType {
  return getNamedType(field.type) as GraphQLObjectType;
}
