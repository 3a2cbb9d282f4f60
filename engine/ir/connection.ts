/**
 * Relay connections (`/v1beta1/relay`): `<t>_connection` root fields and
 * `<rel>_connection` fields of array relationships read rows of a table as
 * `{edges: [{cursor, node}], pageInfo}`, paged by cursors. See Note [Relay
 * connections] in backends/postgres/translate/connection.ts for the SQL.
 */
import type { ColumnMapping } from './bool-exp.ts';
import type { Field, RowSource } from './select.ts';
import type { ParamSource } from './value.ts';

/**
 * One key of a cursor: the sort key at `index` of `RowSource.orderBy`, kept
 * in the cursor's JSON object at `path` (v2: the order_by field names,
 * `{"author": {"name": …}, "id": …}`).
 */
export interface CursorKey {
  readonly index: number;
  readonly path: readonly string[];
  /** The database type a cursor's value is cast to before comparing; null: compared as jsonb. */
  readonly dbType: string | null;
}

/** `after` (rows past the cursor in sort order) or `before`; the cursor is base64 JSON text, decoded when bound. */
export interface ConnectionSplit {
  readonly kind: 'after' | 'before';
  readonly cursor: ParamSource;
}

/** `first: n` or `last: n`. */
export interface ConnectionSlice {
  readonly kind: 'first' | 'last';
  readonly count: ParamSource;
}

/** A field of `PageInfo`. */
export type PageInfoField =
  | { readonly kind: 'has-next-page' | 'has-previous-page' | 'start-cursor' | 'end-cursor'; readonly alias: string }
  | { readonly kind: 'typename'; readonly alias: string; readonly typename: string };

/** A field of `<t>Edge`. */
export type EdgeField =
  | { readonly kind: 'cursor'; readonly alias: string }
  | { readonly kind: 'node'; readonly alias: string; readonly fields: readonly Field[] }
  | { readonly kind: 'typename'; readonly alias: string; readonly typename: string };

/** A field of `<t>Connection`. */
export type ConnectionField =
  | { readonly kind: 'edges'; readonly alias: string; readonly fields: readonly EdgeField[] }
  | { readonly kind: 'page-info'; readonly alias: string; readonly fields: readonly PageInfoField[] }
  | { readonly kind: 'typename'; readonly alias: string; readonly typename: string };

/**
 * Rows of a table as a connection. `from.orderBy` is the client's order
 * followed by the primary key columns it lacks (so cursors are unique);
 * `from.limit` and `from.offset` are null (a connection pages by slice).
 */
export interface ConnectionSelect {
  readonly from: RowSource;
  readonly cursor: readonly CursorKey[];
  readonly split: ConnectionSplit | null;
  readonly slice: ConnectionSlice | null;
  readonly fields: readonly ConnectionField[];
}

/** An array relationship read as a connection (`<rel>_connection`). */
export interface ArrayConnectionField {
  readonly kind: 'array-connection';
  readonly alias: string;
  readonly mapping: ColumnMapping;
  readonly select: ConnectionSelect;
}

/**
 * The Relay `id` of a row (v2's node id, version 1): base64 of the JSON
 * array `[1, "<schema>", "<table>", <primary key values>…]`.
 */
export interface NodeIdField {
  readonly kind: 'node-id';
  readonly alias: string;
  readonly schema: string;
  readonly table: string;
  readonly columns: readonly string[];
}
