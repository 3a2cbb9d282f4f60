/**
 * The fields of `mutation_root` for the tables a role may write:
 * `insert_<t>`, `insert_<t>_one`, `update_<t>`, `update_<t>_by_pk`,
 * `update_<t>_many`, `delete_<t>`, `delete_<t>_by_pk` (names after
 * `custom_root_fields`). Fields returning `<t>` and fields taking a
 * `<t>_bool_exp` need the role's select permission, as in v2.
 */
import {
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
} from 'graphql';
import { capabilitiesOf } from './capabilities.ts';
import { withDescriptor } from './descriptors.ts';
import { configMap, listOf, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import { MutationTypes, pkColumns } from './mutation-types.ts';
import type { MutationView } from './mutation-view.ts';
import { MUTATION, UPDATE_OPS } from './names.ts';
import { writeShapeOf } from './root-types.ts';
import type { SchemaTypes } from './table-types.ts';

/** A `mutation_root` field. */
export type MutationFieldDescriptor =
  | { readonly kind: 'insert'; readonly table: MutationView; readonly one: boolean }
  | { readonly kind: 'update'; readonly table: MutationView; readonly byPk: boolean }
  | { readonly kind: 'update-many'; readonly table: MutationView }
  | { readonly kind: 'delete'; readonly table: MutationView; readonly byPk: boolean };

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

function insertFields(view: MutationView, table: MutationView, m: MutationTypes, types: SchemaTypes, out: Fields): void {
  const rf = view.info.rootFields;
  const name = `"${view.info.name.name}"`;
  const input = m.insertInput(view);
  const onConflict = m.onConflict(view);
  const ifMatched = m.ifMatched(view);
  // The backend's upsert argument (Capabilities.upsert): at most one of the two exists.
  const conflictArg: GraphQLFieldConfigArgumentMap =
    onConflict !== null
      ? { [MUTATION.onConflict]: { type: onConflict, description: 'upsert condition' } }
      : ifMatched !== null
        ? { [MUTATION.ifMatched]: { type: ifMatched, description: 'upsert condition' } }
        : {};
  out[rf.insert] = {
    type: m.mutationResponse(view),
    description: `insert data into the table: ${name}`,
    args: { [MUTATION.objects]: { type: nonNullListOfNonNull(input), description: 'the rows to be inserted' }, ...conflictArg },
    extensions: withDescriptor<MutationFieldDescriptor>({ kind: 'insert', table, one: false }),
  };
  if (view.select === null) return;
  out[rf.insertOne] = {
    type: types.of(view.select).object,
    description: `insert a single row into the table: ${name}`,
    args: { [MUTATION.object]: { type: nonNull(input), description: 'the row to be inserted' }, ...conflictArg },
    extensions: withDescriptor<MutationFieldDescriptor>({ kind: 'insert', table, one: true }),
  };
}

function updateFields(view: MutationView, table: MutationView, m: MutationTypes, types: SchemaTypes, out: Fields): void {
  if (view.select === null) return;
  const ops = m.opArgs(view);
  if (ops.length === 0) return;
  const rf = view.info.rootFields;
  const name = `"${view.info.name.name}"`;
  const boolExp: GraphQLInputObjectType = types.of(view.select).boolExp;
  const opArgs: GraphQLFieldConfigArgumentMap = {};
  for (const [op, t] of ops) opArgs[UPDATE_OPS[op]] = { type: t };
  out[rf.update] = {
    type: m.mutationResponse(view),
    description: `update data of the table: ${name}`,
    args: { ...opArgs, [MUTATION.where]: { type: nonNull(boolExp), description: 'filter the rows which have to be updated' } },
    extensions: withDescriptor<MutationFieldDescriptor>({ kind: 'update', table, byPk: false }),
  };
  const pk = m.pkColumnsInput(view);
  if (pk !== null) {
    out[rf.updateByPk] = {
      type: types.of(view.select).object,
      description: `update single row of the table: ${name}`,
      args: { ...opArgs, [MUTATION.pkColumns]: { type: nonNull(pk) } },
      extensions: withDescriptor<MutationFieldDescriptor>({ kind: 'update', table, byPk: true }),
    };
  }
  out[rf.updateMany] = {
    type: listOf(m.mutationResponse(view)),
    description: `update multiples rows of table: ${name}`,
    args: { [MUTATION.updates]: { type: nonNullListOfNonNull(m.updates(view, boolExp)), description: 'updates to execute, in order' } },
    extensions: withDescriptor<MutationFieldDescriptor>({ kind: 'update-many', table }),
  };
}

function deleteFields(view: MutationView, table: MutationView, m: MutationTypes, types: SchemaTypes, out: Fields): void {
  if (view.select === null) return;
  const rf = view.info.rootFields;
  const name = `"${view.info.name.name}"`;
  out[rf.delete] = {
    type: m.mutationResponse(view),
    description: `delete data from the table: ${name}`,
    args: { [MUTATION.where]: { type: nonNull(types.of(view.select).boolExp), description: 'filter the rows which have to be deleted' } },
    extensions: withDescriptor<MutationFieldDescriptor>({ kind: 'delete', table, byPk: false }),
  };
  const pk = pkColumns(view);
  if (pk === null) return;
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const c of pk) args[c.gqlName] = { type: nonNull(types.columns.input(view.source, c)) };
  out[rf.deleteByPk] = {
    type: types.of(view.select).object,
    description: `delete single row from the table: ${name}`,
    args,
    extensions: withDescriptor<MutationFieldDescriptor>({ kind: 'delete', table, byPk: true }),
  };
}

/**
 * The mutation types a schema build may take from the previous catalog
 * version's schema of the role (`previous`), and those it made (`made`, set
 * by {@link mutationRootFields}): Note [Types across catalog versions] in schema-cache.ts.
 */
export interface MutationCarry {
  readonly previous: MutationTypes | null;
  made: MutationTypes | null;
}

/** The `mutation_root` fields of `views` (empty when the role may write nothing). */
export function mutationRootFields(views: Iterable<MutationView>, types: SchemaTypes, carry?: MutationCarry): Fields {
  const list = [...views];
  const m = MutationTypes.following(carry?.previous ?? null, list, types);
  if (carry !== undefined) carry.made = m;
  const out: Fields = configMap();
  for (const view of list) {
    if (!capabilitiesOf(view.source).mutations) continue;
    // Updates and deletes need select permission too: a view with none of the fields makes no response type.
    if (view.insert === null && (view.select === null || (view.update === null && view.delete === null))) continue;
    const response = m.mutationResponse(view);
    let own = tableFields.get(response);
    if (own === undefined) {
      own = configMap();
      const table = writeShapeOf(view, types);
      if (view.insert !== null) insertFields(view, table, m, types, own);
      if (view.update !== null) updateFields(view, table, m, types, own);
      if (view.delete !== null) deleteFields(view, table, m, types, own);
      tableFields.set(response, own);
    }
    for (const name in own) out[name] = own[name] as GraphQLFieldConfig<unknown, unknown>;
  }
  return out;
}

/**
 * A table's mutation fields by its `<t>_mutation_response`, made with all the
 * role's mutation types whenever any table's write shape or read types
 * change (MutationTypes.following): Note [Root fields across versions] in
 * root-types.ts.
 */
const tableFields = new WeakMap<GraphQLObjectType, Fields>();
