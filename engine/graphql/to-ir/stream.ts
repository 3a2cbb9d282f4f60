/**
 * `<t>_stream` → a select whose rows start past a cursor (stream-fields.ts):
 * the permission filter, `where` and `cursor_column >|< $cursor`, ordered by
 * the cursor column, at most `batch_size` rows, each carrying the cursor
 * column under STREAM_CURSOR_ALIAS. engine/subscriptions/ binds the cursor
 * variable per subscriber and advances it after each batch.
 */
import { getNamedType, GraphQLInt, type FieldNode, type GraphQLField, type GraphQLInputObjectType, type GraphQLObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { STREAM_CURSOR_ALIAS, STREAM_CURSOR_VARIABLE } from '../../ir/root.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { valueEncoding } from '../schema/scalars.ts';
import { CURSOR_ORDERING, STREAM_ARG } from '../schema/stream-fields.ts';
import type { TableView } from '../schema/table-view.ts';
import { argumentOf } from './collect-fields.ts';
import type { ToIrContext } from './context.ts';
import { astInput, enumValue, leafParam, listItems, objectFields } from './input.ts';
import { toIrRowSource } from './row-source.ts';
import { toIrFields } from './select.ts';

function invalid(message: string, path: string): EngineError {
  return new EngineError(ErrorCode.ValidationFailed, message, { path });
}

/** The IR of a `<t>_stream` root field. */
export function toIrStreamField(
  view: TableView,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  path: string,
): ir.DbRootField {
  const cursorNode = argumentOf(nodes, STREAM_ARG.cursor);
  const items = cursorNode === undefined ? [] : listItems(astInput(cursorNode), ctx);
  // v2 compat: exactly one cursor column.
  if (items.length !== 1) throw invalid('one streaming cursor column is expected', `${path}.args.cursor`);
  const cursorFields = new Map(objectFields(items[0] as NonNullable<(typeof items)[0]>, ctx));
  const initial = cursorFields.get(STREAM_ARG.initialValue);
  const values = initial === undefined ? [] : objectFields(initial, ctx);
  if (values.length !== 1) throw invalid('the initial value of a streaming cursor names exactly one column', `${path}.args.cursor.initial_value`);
  const [gqlName, valueInput] = values[0] as NonNullable<(typeof values)[0]>;
  const column = view.columns.find((c) => c.gqlName === gqlName);
  if (column === undefined) throw invalid(`column '${gqlName}' not found`, `${path}.args.cursor.initial_value`);
  const orderingInput = cursorFields.get(STREAM_ARG.ordering);
  const direction: ir.Direction = orderingInput === undefined ? 'asc' : enumValue(orderingInput, CURSOR_ORDERING, ctx) === 'desc' ? 'desc' : 'asc';
  const valueType = (getNamedType(def.args.find((a) => a.name === STREAM_ARG.cursor)?.type) as GraphQLInputObjectType | undefined)?.getFields()[
    STREAM_ARG.initialValue
  ];
  const columnType = (getNamedType(valueType?.type) as GraphQLInputObjectType | undefined)?.getFields()[gqlName]?.type;
  const encoding = valueEncoding(view.source, column.dbType);
  const valuePath = `${path}.args.cursor.initial_value.${gqlName}`;
  const start = columnType === undefined ? null : leafParam(valueInput, columnType, encoding, ctx, false, valuePath);
  if (start === null) throw invalid('the initial value of a streaming cursor may not be null', valuePath);
  const past: ir.BoolExp = {
    kind: 'compare',
    left: { column: column.name, cast: null },
    op: direction === 'asc' ? 'gt' : 'lt',
    right: { kind: 'variable', name: STREAM_CURSOR_VARIABLE, encoding, allowNull: false },
    dbType: column.dbType,
  };
  const batchNode = argumentOf(nodes, STREAM_ARG.batchSize);
  const batch = batchNode === undefined ? null : leafParam(astInput(batchNode), GraphQLInt, 'row-count', ctx, false, `${path}.args.batch_size`);
  if (batch !== null && batch.kind === 'const' && (typeof batch.value !== 'number' || batch.value < 1))
    throw invalid('batch_size must be positive', `${path}.args.batch_size`);
  const from: ir.RowSource = {
    ...toIrRowSource(view, def, nodes, ctx, path, past),
    orderBy: [{ target: { kind: 'column', column: column.name }, direction, nulls: 'last' }],
    limit: batch,
  };
  const selected = toIrFields(view, getNamedType(def.type) as GraphQLObjectType, nodes, ctx, path);
  const fields: ir.Field[] = [...selected, { kind: 'column', alias: STREAM_CURSOR_ALIAS, column: column.name, asText: false }];
  return { kind: 'select', alias, source: view.source.name, select: { from, fields, cardinality: 'many' }, stream: { column: column.name, initial: start } };
}
