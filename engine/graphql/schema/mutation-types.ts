/**
 * The GraphQL input and output types of mutations for one table as one role
 * may write it: `<t>_insert_input`, `<t>_obj_rel_insert_input`,
 * `<t>_arr_rel_insert_input`, `<t>_on_conflict`, `<t>_constraint`,
 * `<t>_if_matched`, `<t>_insert_match_column`,
 * `<t>_update_column`, `<t>_mutation_response`, the update operator inputs
 * (`<t>_set_input`, `<t>_inc_input`, ...), `<t>_pk_columns_input` and
 * `<t>_updates`. v2 compat: docs/compat.md, "Generated GraphQL schema".
 */
import {
  GraphQLInt,
  GraphQLString,
  type GraphQLEnumType,
  type GraphQLInputFieldConfig,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { tableKey, type ColumnInfo, type TableInfo } from '../../catalog/types.ts';
import { columnExtensions, withDescriptor } from './descriptors.ts';
import { configMap, generatedEnumType, generatedInputObjectType, generatedObjectType, listOfNonNull, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import type { InsertRelationshipView, MutationView } from './mutation-view.ts';
import { MUTATION, UPDATE_OPS } from './names.ts';
import { capabilitiesOf } from './capabilities.ts';
import { isNumeric, scalarInfo } from './scalars.ts';
import type { SchemaTypes, TableTypes } from './table-types.ts';

/** A field of `<t>_insert_input`. */
export type InsertFieldDescriptor =
  { readonly kind: 'column'; readonly column: ColumnInfo } | { readonly kind: 'relationship'; readonly rel: InsertRelationshipView };

/** An update operator argument (`_set`, `_inc`, ...) keyed by its IR operator. */
export type UpdateOpName = keyof typeof UPDATE_OPS;

/** The update operators in v2's argument order. */
export const UPDATE_OP_NAMES = Object.keys(UPDATE_OPS) as UpdateOpName[];

/** The primary key and unique constraints of a table, by `<t>_constraint` value. */
export function constraintsOf(view: MutationView): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  const info = view.info;
  if (info.primaryKey.length > 0) out.set(info.primaryKeyName ?? `${info.name.name}_pkey`, info.primaryKey);
  for (const u of info.uniqueConstraints) out.set(u.name, u.columns);
  return out;
}

/** Columns an update operator applies to (v2: `_inc` numeric, `_append`... jsonb). */
function opColumns(view: MutationView, op: UpdateOpName): readonly ColumnInfo[] {
  const cols = view.update?.columns ?? [];
  switch (op) {
    case 'set':
      return cols;
    case 'inc':
      return cols.filter((c) => c.elementType === null && isNumeric(view.source, c.dbType));
    default:
      return cols.filter((c) => scalarInfo(view.source, c.dbType).operators === 'json');
  }
}

/** What one table's mutation types are made from: see {@link MutationTypes.following}. */
interface MadeFrom {
  readonly info: TableInfo;
  readonly label: string;
  /** The table types of the role's read view (`returning`, `where`...), or null. */
  readonly read: TableTypes | null;
}

/** The shape of a write view its mutation types show. */
function writeLabel(v: MutationView): string {
  const cols = (c: readonly ColumnInfo[] | undefined): string => (c === undefined ? '-' : c.map((x) => x.name).join(','));
  const rels = v.insertRelationships.map((r) => `${r.info.name}>${r.target.source.name}\0${tableKey(r.target.info.name)}`).join(',');
  return `i:${cols(v.insert?.columns)}|u:${cols(v.update?.columns)}|d:${v.delete === null ? '-' : '+'}|${rels}`;
}

/** The mutation types of every table of one schema, each created once. */
export class MutationTypes {
  readonly #types: SchemaTypes;
  readonly #memo: Map<string, GraphQLInputObjectType | GraphQLObjectType | GraphQLEnumType | null>;
  /** Per table (`source\0schema.name`), what its types are made from. */
  readonly #from: ReadonlyMap<string, MadeFrom>;
  readonly #opArgs = new Map<MutationView, Array<readonly [UpdateOpName, GraphQLInputObjectType]>>();

  constructor(
    types: SchemaTypes,
    memo = new Map<string, GraphQLInputObjectType | GraphQLObjectType | GraphQLEnumType | null>(),
    from: ReadonlyMap<string, MadeFrom> = new Map(),
  ) {
    this.#types = types;
    this.#memo = memo;
    this.#from = from;
  }

  /**
   * The mutation types of `views` over `types`, taking every type `previous`
   * (of the previous catalog version, when its table types may serve this
   * one: Note [Types across catalog versions] in schema-cache.ts) made, when
   * each table it made types for is here with the same TableInfo, write
   * shape and read types. A type names its table, so a dropped table (whose
   * name a new one may take) or any changed table makes them all anew.
   */
  static following(previous: MutationTypes | null, views: readonly MutationView[], types: SchemaTypes): MutationTypes {
    const from = new Map<string, MadeFrom>();
    for (const v of views) {
      from.set(`${v.source.name}\0${tableKey(v.info.name)}`, { info: v.info, label: writeLabel(v), read: v.select === null ? null : types.of(v.select) });
    }
    if (previous === null) return new MutationTypes(types, undefined, from);
    for (const [key, was] of previous.#from) {
      const now = from.get(key);
      if (now === undefined || now.info !== was.info || now.label !== was.label || now.read !== was.read) return new MutationTypes(types, undefined, from);
    }
    return new MutationTypes(types, new Map(previous.#memo), from);
  }

  #once<T extends GraphQLInputObjectType | GraphQLObjectType | GraphQLEnumType | null>(name: string, make: () => T): T {
    // One lookup for a type made before (null, for none, is kept too).
    const known = this.#memo.get(name);
    if (known !== undefined) return known as T;
    const t = make();
    this.#memo.set(name, t);
    return t;
  }

  /** `<t>_insert_input`: insertable columns and relationships to insertable tables. */
  insertInput(view: MutationView): GraphQLInputObjectType {
    return this.#once(view.names.insertInput, () => {
      return generatedInputObjectType({
        name: view.names.insertInput,
        description: `input type for inserting data into table "${view.info.name.name}"`,
        fields: () => {
          const fields = configMap<GraphQLInputFieldConfig>();
          for (const c of view.insert?.columns ?? []) {
            fields[c.gqlName] = {
              type: this.#types.columns.input(view.source, c),
              extensions: columnExtensions(c),
            };
          }
          // Inserts through relationships only where the source's backend has them (Capabilities.nestedInserts).
          for (const rel of capabilitiesOf(view.source).nestedInserts ? view.insertRelationships : []) {
            const type = rel.info.kind === 'object' ? this.objRelInsertInput(rel.target) : this.arrRelInsertInput(rel.target);
            fields[rel.info.name] = { type, extensions: withDescriptor<InsertFieldDescriptor>({ kind: 'relationship', rel }) };
          }
          return fields;
        },
      });
    });
  }

  #relInput(view: MutationView, name: string, data: GraphQLInputType, what: string): GraphQLInputObjectType {
    return this.#once(name, () => {
      const fields: GraphQLInputFieldConfigMap = { [MUTATION.data]: { type: nonNull(data) } };
      const onConflict = this.onConflict(view);
      if (onConflict !== null) fields[MUTATION.onConflict] = { type: onConflict, description: 'upsert condition' };
      return generatedInputObjectType({ name, description: `input type for inserting ${what} relation for remote table "${view.info.name.name}"`, fields });
    });
  }

  /** `<t>_obj_rel_insert_input {data, on_conflict}`. */
  objRelInsertInput(view: MutationView): GraphQLInputObjectType {
    return this.#relInput(view, view.names.objRelInsertInput, this.insertInput(view), 'object');
  }

  /** `<t>_arr_rel_insert_input {data: [...], on_conflict}`. */
  arrRelInsertInput(view: MutationView): GraphQLInputObjectType {
    const data = listOfNonNull(this.insertInput(view));
    return this.#relInput(view, view.names.arrRelInsertInput, data, 'array');
  }

  /**
   * `<t>_on_conflict`, or null when the table has no unique constraint.
   *
   * Note [Upsert without update permission]
   * v2 offers `on_conflict` to a role that may insert but not update: its
   * `<t>_update_column` enum holds only `_PLACEHOLDER`, so the one upsert it
   * can ask for is `update_columns: []`, i.e. ON CONFLICT DO NOTHING, which
   * writes no existing row (the update permission guards only overwrites).
   */
  onConflict(view: MutationView): GraphQLInputObjectType | null {
    return this.#once(view.names.onConflict, () => {
      const constraints = constraintsOf(view);
      if (constraints.size === 0 || capabilitiesOf(view.source).upsert !== 'on_conflict') return null;
      const constraint = generatedEnumType({
        name: view.names.constraint,
        description: `unique or primary key constraints on table "${view.info.name.name}"`,
        values: Object.fromEntries(
          [...constraints].map(([name, cols]) => [
            name,
            { value: name, description: `unique or primary key constraint on columns ${cols.map((c) => `"${c}"`).join(', ')}` },
          ]),
        ),
      });
      const fields: GraphQLInputFieldConfigMap = {
        [MUTATION.constraint]: { type: nonNull(constraint) },
        [MUTATION.updateColumns]: { type: nonNullListOfNonNull(this.updateColumn(view)), defaultValue: [] },
      };
      if (view.select !== null) fields[MUTATION.where] = { type: this.#types.of(view.select).boolExp };
      return generatedInputObjectType({
        name: view.names.onConflict,
        description: `on_conflict condition type for table "${view.info.name.name}"`,
        fields,
      });
    });
  }

  /**
   * `<t>_if_matched {match_columns, update_columns, where}`: v2's MSSQL
   * upsert, or null when the source's backend upserts otherwise.
   *
   * Note [MSSQL if_matched]
   * v2's MSSQL backend upserts with an `if_matched` argument of insert fields
   * (its Schema/IfMatched.hs), not `on_conflict`: rows match existing ones on
   * `match_columns` (any comparable column the role may select, no
   * constraint needed; none: no row matches, all are inserted), matched rows
   * get `update_columns` from the input where `where` and the role's update
   * filter hold, and are left alone otherwise. v2 offers it only to a role
   * with both select and update permission. It becomes the same IR as
   * `on_conflict` (ir.OnConflict, its `constraintColumns` the match columns),
   * which the MSSQL compiler writes as MERGE (translate/insert.ts).
   */
  ifMatched(view: MutationView): GraphQLInputObjectType | null {
    return this.#once(view.names.ifMatched, () => {
      if (capabilitiesOf(view.source).upsert !== 'if_matched' || view.update === null || view.select === null) return null;
      const match = this.insertMatchColumn(view);
      if (match === null) return null;
      return generatedInputObjectType({
        name: view.names.ifMatched,
        description: `upsert condition type for table "${view.info.name.name}"`,
        fields: {
          [MUTATION.matchColumns]: { type: nonNullListOfNonNull(match), defaultValue: [] },
          [MUTATION.updateColumns]: { type: nonNullListOfNonNull(this.updateColumn(view)), defaultValue: [] },
          [MUTATION.where]: { type: this.#types.of(view.select).boolExp },
        },
      });
    });
  }

  /**
   * `<t>_insert_match_column`: the columns `if_matched` may match on, those the
   * role may select whose type compares with `=` (v2 leaves out `text`; SQL
   * Server cannot compare `ntext`, `image`, `xml` or spatial values either),
   * or null when there is none.
   */
  insertMatchColumn(view: MutationView): GraphQLEnumType | null {
    return this.#once(view.names.insertMatchColumn, () => {
      const cols = (view.select?.columns ?? []).filter((c) => c.elementType === null && scalarInfo(view.source, c.dbType).sortable);
      if (cols.length === 0) return null;
      return generatedEnumType({
        name: view.names.insertMatchColumn,
        description: `select match_columns of table "${view.info.name.name}"`,
        values: Object.fromEntries(cols.map((c) => [c.gqlName, { value: c.name, description: 'column name' }])),
      });
    });
  }

  /** `<t>_update_column`: the columns an upsert may overwrite (v2: `_PLACEHOLDER` when none). */
  updateColumn(view: MutationView): GraphQLEnumType {
    return this.#once(view.names.updateColumn, () => {
      const cols = view.update?.columns ?? [];
      const values =
        cols.length === 0
          ? { [MUTATION.placeholder]: { value: null, description: 'placeholder (do not use)' } }
          : Object.fromEntries(cols.map((c) => [c.gqlName, { value: c.name, description: 'column name' }]));
      return generatedEnumType({ name: view.names.updateColumn, description: `update columns of table "${view.info.name.name}"`, values });
    });
  }

  /** `<t>_mutation_response {affected_rows, returning}` (returning only with select permission). */
  mutationResponse(view: MutationView): GraphQLObjectType {
    return this.#once(view.names.mutationResponse, () => {
      const select = view.select;
      return generatedObjectType({
        name: view.names.mutationResponse,
        description: `response of any mutation on the table "${view.info.name.name}"`,
        fields: () => ({
          [MUTATION.affectedRows]: { type: nonNull(GraphQLInt), description: 'number of rows affected by the mutation' },
          ...(select === null
            ? {}
            : {
                [MUTATION.returning]: {
                  type: nonNullListOfNonNull(this.#types.of(select).object),
                  description: 'data from the rows affected by the mutation',
                },
              }),
        }),
      });
    });
  }

  /** The argument type of an update operator, or null when no column takes it. */
  opInput(view: MutationView, op: UpdateOpName): GraphQLInputObjectType | null {
    const name = view.names.opInput(op);
    return this.#once(name, () => {
      const cols = opColumns(view, op);
      if (cols.length === 0) return null;
      const fields: GraphQLInputFieldConfigMap = {};
      for (const c of cols) fields[c.gqlName] = { type: this.#opValueType(view, c, op) };
      return generatedInputObjectType({ name, description: `input type for the ${UPDATE_OPS[op]} operator on table "${view.info.name.name}"`, fields });
    });
  }

  #opValueType(view: MutationView, c: ColumnInfo, op: UpdateOpName): GraphQLInputType {
    switch (op) {
      case 'delete_key':
        return GraphQLString;
      case 'delete_elem':
        return GraphQLInt;
      case 'delete_at_path':
        return listOfNonNull(GraphQLString);
      default:
        return this.#types.columns.input(view.source, c);
    }
  }

  /**
   * The update operator arguments of `view` that apply to some column; once
   * per view (`update_<t>`, `update_<t>_by_pk` and `<t>_updates` ask, and
   * each operator's type name is a new string to look up).
   */
  opArgs(view: MutationView): ReadonlyArray<readonly [UpdateOpName, GraphQLInputObjectType]> {
    let out = this.#opArgs.get(view);
    if (out !== undefined) return out;
    out = [];
    for (const op of UPDATE_OP_NAMES) {
      const t = this.opInput(view, op);
      if (t !== null) out.push([op, t]);
    }
    this.#opArgs.set(view, out);
    return out;
  }

  /** `<t>_pk_columns_input`, or null without a primary key the role can read. */
  pkColumnsInput(view: MutationView): GraphQLInputObjectType | null {
    return this.#once(view.names.pkColumnsInput, () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const c of pkColumns(view) ?? []) fields[c.gqlName] = { type: nonNull(this.#types.columns.input(view.source, c)) };
      if (Object.keys(fields).length === 0) return null;
      return generatedInputObjectType({ name: view.names.pkColumnsInput, description: `primary key columns input for table: ${view.info.name.name}`, fields });
    });
  }

  /** `<t>_updates`: one entry of `update_<t>_many`. */
  updates(view: MutationView, boolExp: GraphQLInputObjectType): GraphQLInputObjectType {
    return this.#once(view.names.updates, () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const [op, t] of this.opArgs(view)) fields[UPDATE_OPS[op]] = { type: t };
      fields[MUTATION.where] = { type: nonNull(boolExp), description: 'filter the rows which have to be updated' };
      return generatedInputObjectType({ name: view.names.updates, fields });
    });
  }
}

/** The primary key columns as the role reads them, or null when some is not readable (no `_by_pk` fields). */
export function pkColumns(view: MutationView): ColumnInfo[] | null {
  if (view.select === null || view.info.primaryKey.length === 0) return null;
  const select = view.select;
  const cols = view.info.primaryKey.map((k) => select.columns.find((c) => c.name === k));
  return cols.every((c) => c !== undefined) ? (cols as ColumnInfo[]) : null;
}
