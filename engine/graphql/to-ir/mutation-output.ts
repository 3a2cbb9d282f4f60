/**
 * The selection of a mutation field → ir.MutationOutput: `{affected_rows,
 * returning}` of `<t>_mutation_response`, or the row object of `_one` and
 * `_by_pk` fields. Returned rows go through the role's select permission
 * (columns by the schema, rows by its filter), as in v2.
 */
import { getNamedType, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import type { MutationView } from '../schema/mutation-view.ts';
import { MUTATION } from '../schema/names.ts';
import { collectFields } from './collect-fields.ts';
import type { ToIrContext } from './context.ts';
import { toIrFields } from './select.ts';

/** The output of a mutation field returning `<t>_mutation_response`. */
export function toIrResponse(
  view: MutationView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
): ir.MutationOutput {
  const type = getNamedType(field.type) as GraphQLObjectType;
  const defs = type.getFields();
  const fields: ir.ResponseField[] = [];
  for (const [alias, fieldNodes] of collectFields(
    type,
    nodes.map((n) => n.selectionSet),
    ctx,
  )) {
    const name = fieldNodes[0]?.name.value ?? alias;
    if (name === '__typename') fields.push({ kind: 'typename', alias, typename: type.name });
    else if (name === MUTATION.affectedRows) fields.push({ kind: 'affected-rows', alias });
    else if (name === MUTATION.returning && view.select !== null) {
      const def = defs[name];
      if (def === undefined) continue;
      const rowType = getNamedType(def.type) as GraphQLObjectType;
      fields.push({ kind: 'returning', alias, fields: toIrFields(view.select, rowType, fieldNodes, ctx, `${path}.selectionSet.${alias}`) });
    }
  }
  return { kind: 'response', fields, filter: view.select?.filter ?? null };
}

/** The output of a mutation field returning one `<t>` row (or null). */
export function toIrRowOutput(
  view: MutationView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
): ir.MutationOutput {
  const select = view.select;
  const fields = select === null ? [] : toIrFields(select, getNamedType(field.type) as GraphQLObjectType, nodes, ctx, path);
  return { kind: 'row', fields, filter: select?.filter ?? null };
}
