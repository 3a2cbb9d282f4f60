/**
 * Writes: inserts (nested through relationships), updates and deletes, with
 * the role's insert/update/delete permission already folded in (column sets,
 * presets, filters, checks), so dialects never see roles.
 *
 * Note [Mutation inputs as JSON]
 * The rows of an insert and the argument objects of an update (`_set`,
 * `_inc`, ...) reach the database as one JSON parameter each, never as one
 * parameter per value: a thousand-row insert is one parameter, and the plan
 * of `insert_t(objects: $rows)` is reused for any `$rows` whose *shape* (which
 * keys its objects have, and its `on_conflict` values) was seen before. The
 * database converts each JSON object to a row of the table
 * (`jsonb_populate_record`), so typing and validation of every column type is
 * the database's own. What the SQL depends on is which columns the objects
 * give: rows giving the same columns (and the same object relationships) form
 * a {@link InsertPartition}, inserted by one INSERT, so columns a row leaves
 * out keep their database defaults.
 */
import type { BoolExp, ColumnMapping } from './bool-exp.ts';
import type { Field, TypenameField } from './select.ts';
import type { QualifiedName } from './table.ts';
import type { ParamSource } from './value.ts';

/** A column written from an input JSON object: its database name and its key in the JSON (the GraphQL field name). */
export interface InputColumn {
  readonly column: string;
  readonly key: string;
}

/**
 * Values a permission sets whatever the input says (`set` presets), as one
 * JSON object keyed by database column names (a `json-doc` parameter whose
 * leaves may be session variables); null when there are none.
 */
export interface Presets {
  readonly columns: readonly string[];
  readonly value: ParamSource;
}

/** The upsert of one insert level: `on_conflict`, or v2's MSSQL `if_matched`. */
export interface OnConflict {
  /**
   * The columns an input row matches an existing row on: of the primary key or unique constraint
   * named (`on_conflict`'s target), or `if_matched`'s `match_columns` (empty: no row matches).
   */
  readonly constraintColumns: readonly string[];
  /** Columns overwritten with the proposed row's values; empty means DO NOTHING. */
  readonly updateColumns: readonly string[];
  /** Condition on the existing row (user `where` and the role's update filter); null = always update. */
  readonly where: BoolExp | null;
  /** The role's update presets, set on rows the upsert updates (they win over `update_columns`). */
  readonly presets: Presets | null;
  /** The role's update check, on rows the upsert updates (inserted rows get the insert check). */
  readonly check: BoolExp | null;
}

/** Rows of one level that give the same input columns and object relationships: one INSERT. */
export interface InsertPartition {
  readonly columns: readonly InputColumn[];
  /** Input keys of the object relationships these rows nest (their parent rows are inserted first). */
  readonly parents: readonly string[];
}

/** The rows of one table at one place of a (nested) insert. */
export interface InsertLevel {
  readonly table: QualifiedName;
  /** The table's primary key columns (empty when it has none): a link known before the insert. */
  readonly primaryKey: readonly string[];
  /** Every column key the input objects of this level may give (to tell partitions apart). */
  readonly inputColumns: readonly InputColumn[];
  readonly partitions: readonly InsertPartition[];
  readonly presets: Presets | null;
  readonly onConflict: OnConflict | null;
  /** The insert permission's check on each new row; null = none. */
  readonly check: BoolExp | null;
  /** Object relationships: their rows are inserted first and this level's rows reference them. */
  readonly parents: readonly NestedInsert[];
  /** Array relationships: their rows are inserted after and reference this level's rows. */
  readonly children: readonly NestedInsert[];
}

/** A relationship whose rows are inserted along with a level. */
export interface NestedInsert {
  /** The relationship's key in the input object (`{data, on_conflict}` under it). */
  readonly key: string;
  /** Relationship name and table, for error messages. */
  readonly name: string;
  /** `[column of the owning table, column of the target]` pairs (the relationship's mapping). */
  readonly mapping: ColumnMapping;
  readonly level: InsertLevel;
  /**
   * A child given as one object, not a list: an object relationship whose foreign key is on the
   * target (a one-to-one "detail" row, inserted after its owner with the owner's key).
   */
  readonly one?: boolean;
}

/** A field of `<t>_mutation_response`. */
export type ResponseField =
  | { readonly kind: 'affected-rows'; readonly alias: string }
  | { readonly kind: 'returning'; readonly alias: string; readonly fields: readonly Field[] }
  | TypenameField;

/** What a mutation field answers; `filter` is the role's select filter (rows it hides are left out; null = none). */
export type MutationOutput =
  /** `{affected_rows, returning}` */
  | { readonly kind: 'response'; readonly fields: readonly ResponseField[]; readonly filter: BoolExp | null }
  /** `_one` / `_by_pk`: the affected row's object, or null. */
  | { readonly kind: 'row'; readonly fields: readonly Field[]; readonly filter: BoolExp | null };

/** `insert_<t>` / `insert_<t>_one`. */
export interface Insert {
  /** The JSON array of the top-level input objects (nested objects inside). */
  readonly rows: ParamSource;
  readonly root: InsertLevel;
  /** The table's primary key (empty when none): rows are read back by it when the output follows relationships. */
  readonly primaryKey: readonly string[];
  readonly output: MutationOutput;
}

/** How an update operator combines a column with its argument. */
export type UpdateOpKind =
  | 'set'
  | 'inc'
  | 'append'
  | 'prepend'
  | 'delete_key'
  | 'delete_elem'
  | 'delete_at_path'
  /** v1 `$mul` (legacy /v1/query only): the column times the argument. */
  | 'mul'
  /** v1 `$default` (legacy /v1/query only): the column's default; `value` is unused. */
  | 'default';

/** One update operator argument (`_set: {...}`): a JSON object parameter and the columns it names. */
export interface UpdateOp {
  readonly kind: UpdateOpKind;
  readonly value: ParamSource;
  readonly columns: readonly InputColumn[];
}

/** `update_<t>`, `update_<t>_by_pk`, one entry of `update_<t>_many`. */
export interface Update {
  readonly table: QualifiedName;
  /** The role's update filter and the user's `where` (or primary key), conjoined. */
  readonly where: BoolExp;
  readonly ops: readonly UpdateOp[];
  readonly presets: Presets | null;
  /** The update permission's check on each updated row; null = none. */
  readonly check: BoolExp | null;
  readonly output: MutationOutput;
}

/** `delete_<t>`, `delete_<t>_by_pk`. */
export interface Delete {
  readonly table: QualifiedName;
  /** The role's delete filter and the user's `where` (or primary key), conjoined. */
  readonly where: BoolExp;
  readonly output: MutationOutput;
}

/** What one mutation root field does. */
export type Mutation =
  | { readonly kind: 'insert'; readonly insert: Insert }
  | { readonly kind: 'update'; readonly update: Update }
  /** `update_<t>_many`: applied in order, one response each. */
  | { readonly kind: 'update-many'; readonly updates: readonly Update[] }
  | { readonly kind: 'delete'; readonly delete: Delete };

/** A root field of a mutation operation. Every such field of a request runs in one transaction, in order. */
export interface MutationRootField {
  readonly kind: 'mutation';
  readonly alias: string;
  readonly source: string;
  readonly mutation: Mutation;
}
