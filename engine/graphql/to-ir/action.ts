/**
 * An action root field of a validated operation → IR: the arguments as a
 * JSON document (variables stay slots, bound per request), the client's
 * selection of the output, and one table read per relationship field
 * (Note [Action relationships] in execute/action-step.ts).
 */
import { getNamedType, isObjectType, Kind, type FieldNode, type GraphQLField, type GraphQLObjectType, type ValueNode } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { andAll } from '../../ir/bool-exp.ts';
import { descriptorOf } from '../schema/descriptors.ts';
import { typeNames } from '../schema/scalars.ts';
import { argumentOf, collectFields } from './collect-fields.ts';
import { readView, useLeaf, type ToIrContext } from './context.ts';
import { plainSource, toIrRowSource } from './row-source.ts';
import { toIrAggregate, toIrFields } from './select.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import type { ActionFieldDescriptor, ActionRelationshipDescriptor } from '../schema/action-root-fields.ts';
import { ACTION_ROWS_ALIAS } from '../../ir/root.ts';

/** An argument value as a JSON document: variables become slots. */
function docOf(node: ValueNode, ctx: ToIrContext): ir.JsonDoc {
  switch (node.kind) {
    case Kind.VARIABLE:
      useLeaf(ctx, node.name.value);
      return { kind: 'variable', name: node.name.value };
    case Kind.INT:
    case Kind.FLOAT:
      return { kind: 'const', value: Number(node.value) };
    case Kind.STRING:
    case Kind.ENUM:
    case Kind.BOOLEAN:
      return { kind: 'const', value: node.value };
    case Kind.NULL:
      return { kind: 'const', value: null };
    case Kind.LIST:
      return { kind: 'array', items: node.values.map((v) => docOf(v, ctx)) };
    case Kind.OBJECT:
      return { kind: 'object', fields: node.fields.map((f) => [f.name.value, docOf(f.value, ctx)] as const) };
  }
}

interface Walk {
  readonly ctx: ToIrContext;
  readonly relationships: ir.ActionRelationshipRead[];
  readonly alias: string;
}

function selectionOf(type: GraphQLObjectType, nodes: readonly FieldNode[], walk: Walk, path: string): ir.ActionSelection {
  const fields: ir.ActionSelectedField[] = [];
  const defs = type.getFields();
  for (const [alias, fieldNodes] of collectFields(type, selectionSets(nodes), walk.ctx)) {
    const name = fieldNodes[0]?.name.value ?? alias;
    if (name === '__typename') {
      fields.push({ kind: 'typename', alias, typename: type.name });
      continue;
    }
    const def = defs[name];
    if (def === undefined) throw new EngineError(ErrorCode.ValidationFailed, `field '${name}' not found in type: '${type.name}'`, { path: `${path}.${alias}` });
    const d = descriptorOf<ActionRelationshipDescriptor>(def.extensions);
    if (d?.kind === 'action-relationship') {
      fields.push({ kind: 'relationship', alias, index: walk.relationships.length });
      walk.relationships.push(relationshipRead(d, def, fieldNodes, walk, `${path}.${alias}`));
      continue;
    }
    const named = getNamedType(def.type);
    fields.push({
      kind: 'field',
      alias,
      name,
      selection: isObjectType(named) ? selectionOf(named, fieldNodes, walk, `${path}.${alias}`) : { kind: 'leaf' },
    });
  }
  return { kind: 'object', fields };
}

function selectionSets(nodes: readonly FieldNode[]): Array<FieldNode['selectionSet']> {
  return nodes.map((n) => n.selectionSet);
}

/**
 * The read of one relationship field, filtered to the join keys (variables
 * bound at run time), with the key columns as `__key<i>` to match rows back
 * to objects. An object relationship reads the target's rows with the
 * caller's permission. An array relationship reads the distinct key tuples
 * present in the target table, each with its rows as an array relationship
 * of the target to itself on those columns: the rows' `where`, order,
 * `limit`, `offset` and the permission's limit apply per key tuple, so per
 * output object, in the one statement (Note [Action relationships]). A
 * `<rel>_aggregate` field reads the same key tuples, each with its aggregate.
 */
function relationshipRead(
  d: ActionRelationshipDescriptor,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  walk: Walk,
  path: string,
): ir.ActionRelationshipRead {
  const view = readView(walk.ctx, d.target);
  const n = walk.relationships.length;
  const keyVariables = d.rel.fieldMapping.map((_, i) => `__engine_action_${walk.alias}_${n}_${i}`);
  const keyAliases = d.rel.fieldMapping.map((_, i) => `__key${i}`);
  const keys: ir.BoolExp[] = d.rel.fieldMapping.map(([, column], i) => {
    const info = view.info.columns.find((c) => c.name === column);
    return {
      kind: 'compare',
      left: { column, cast: null },
      op: 'in',
      right: { kind: 'variable', name: keyVariables[i] as string, encoding: 'plain', allowNull: false },
      dbType: info?.dbType ?? typeNames(view.source).text,
    };
  });
  const keyFilter = andAll(keys);
  const keyFields: ir.Field[] = d.rel.fieldMapping.map(([, column], i) => ({ kind: 'column', alias: keyAliases[i] as string, column, asText: true }));
  const columns = d.rel.fieldMapping.map(([, column]) => column);
  const mapping = columns.map((c) => [c, c] as const);
  // The key tuples only: nothing of these rows reaches the answer but the keys the handler gave.
  const keyTuples: ir.RowSource = { table: view.info.name, where: keyFilter, orderBy: [], distinctOn: columns, limit: null, limitCap: null, offset: null };
  let select: ir.Select;
  let type: ir.ActionRelationshipRead['type'];
  if (d.aggregate === true) {
    type = 'aggregate';
    const aggregate = toIrAggregate(view, def, nodes, walk.ctx, path);
    select = {
      from: keyTuples,
      fields: [...keyFields, { kind: 'array-aggregate', alias: ACTION_ROWS_ALIAS, mapping, select: aggregate }],
      cardinality: 'many',
    };
  } else {
    type = d.rel.type;
    const selected = toIrFields(view, getNamedType(def.type) as GraphQLObjectType, nodes, walk.ctx, path);
    select =
      d.rel.type === 'object'
        ? { from: plainSource(view, keyFilter), fields: [...selected, ...keyFields], cardinality: 'many' }
        : {
            from: keyTuples,
            fields: [
              ...keyFields,
              {
                kind: 'array-relationship',
                alias: ACTION_ROWS_ALIAS,
                mapping,
                select: { from: toIrRowSource(view, def, nodes, walk.ctx, path), fields: selected, cardinality: 'many' },
              },
            ],
            cardinality: 'many',
          };
  }
  const read: ir.DbRootField = { kind: 'select', alias: `r${n}`, source: view.source.name, select };
  return { type, source: view.source.name, fieldMapping: d.rel.fieldMapping, keyVariables, keyAliases, read };
}

/** Translates an action root field. */
export function toIrActionField(
  d: ActionFieldDescriptor,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  path: string,
  operation: 'query' | 'mutation',
  requestQuery: string,
): ir.ActionRootField {
  const args: Array<readonly [string, ir.JsonDoc]> = [];
  for (const a of def.args) {
    const node = argumentOf(nodes, a.name);
    if (node !== undefined) args.push([a.name, docOf(node, ctx)]);
  }
  const walk: Walk = { ctx, relationships: [], alias };
  const named = getNamedType(def.type);
  let selection: ir.ActionSelection = { kind: 'leaf' };
  if (d.mode === 'async-result') {
    // `{id, created_at, output, errors}`: `output` carries the output type's selection.
    selection = isObjectType(named) ? selectionOf(named, nodes, walk, path) : selection;
  } else if (isObjectType(named)) selection = selectionOf(named, nodes, walk, path);
  return {
    kind: 'action',
    alias,
    action: d.action.name,
    mode: d.mode,
    input: { kind: 'object', fields: args },
    selection,
    relationships: walk.relationships,
    requestQuery,
    operation,
  };
}
