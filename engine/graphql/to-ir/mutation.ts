/** A `mutation_root` field → ir.MutationRootField, by the descriptor its definition carries. */
import type { FieldNode, GraphQLField, GraphQLInputObjectType, GraphQLInputType } from 'graphql';
import { getNamedType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { descriptorOf } from '../schema/descriptors.ts';
import type { MutationFieldDescriptor } from '../schema/mutation-root.ts';
import { MUTATION } from '../schema/names.ts';
import { argumentOf } from './collect-fields.ts';
import { writeView, type ToIrContext } from './context.ts';
import { astInput, objectFields, type Input } from './input.ts';
import { toIrInsert } from './insert.ts';
import { toIrResponse, toIrRowOutput } from './mutation-output.ts';
import { fieldArgs, pkWhere, toIrDelete, toIrMutationWhere, toIrUpdate, toIrUpdateMany } from './update.ts';

function argInput(nodes: readonly FieldNode[], name: string): Input | null {
  const node = argumentOf(nodes, name);
  return node === undefined ? null : astInput(node);
}

function toIrMutation(
  d: MutationFieldDescriptor,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
): ir.Mutation {
  const view = writeView(ctx, d.table);
  const argType = (name: string): GraphQLInputType | undefined => def.args.find((a) => a.name === name)?.type;
  switch (d.kind) {
    case 'insert': {
      const rows = argInput(nodes, d.one ? MUTATION.object : MUTATION.objects) ?? { kind: 'json', value: [] };
      const output = d.one ? toIrRowOutput(view, def, nodes, ctx, path) : toIrResponse(view, def, nodes, ctx, path);
      return {
        kind: 'insert',
        insert: toIrInsert(view, rows, d.one, argInput(nodes, MUTATION.onConflict), argInput(nodes, MUTATION.ifMatched), output, ctx, path),
      };
    }
    case 'update': {
      const output = d.byPk ? toIrRowOutput(view, def, nodes, ctx, path) : toIrResponse(view, def, nodes, ctx, path);
      let keyWhere: ir.BoolExp | null = null;
      if (d.byPk) {
        const pkType = argType(MUTATION.pkColumns);
        const pk = argInput(nodes, MUTATION.pkColumns);
        const defs = pkType === undefined ? {} : (getNamedType(pkType) as GraphQLInputObjectType).getFields();
        keyWhere = pk === null ? null : pkWhere(view, objectFields(pk, ctx), (n) => defs[n]?.type, ctx, `${path}.args.pk_columns`);
      }
      return { kind: 'update', update: toIrUpdate(view, fieldArgs(nodes), argType, keyWhere, output, ctx, path) };
    }
    case 'update-many':
      return { kind: 'update-many', updates: toIrUpdateMany(view, def, nodes, toIrResponse(view, def, nodes, ctx, path), ctx, path) };
    case 'delete': {
      if (!d.byPk)
        return { kind: 'delete', delete: toIrDelete(view, toIrMutationWhere(view, def, nodes, ctx, path), toIrResponse(view, def, nodes, ctx, path)) };
      const fields = def.args.flatMap((a) => {
        const i = argInput(nodes, a.name);
        return i === null ? [] : [[a.name, i] as const];
      });
      const where = pkWhere(view, fields, argType, ctx, `${path}.args`);
      return { kind: 'delete', delete: toIrDelete(view, where, toIrRowOutput(view, def, nodes, ctx, path)) };
    }
  }
}

/** Translates one mutation root field; `alias` is its response key. */
export function toIrMutationField(
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  path: string,
): ir.MutationRootField {
  const d = descriptorOf<MutationFieldDescriptor>(def.extensions);
  if (d === undefined) throw new EngineError(ErrorCode.ValidationFailed, `field '${def.name}' not found in type: 'mutation_root'`, { path });
  return { kind: 'mutation', alias, source: d.table.source.name, mutation: toIrMutation(d, def, nodes, ctx, path) };
}
