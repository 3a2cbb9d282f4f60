/** A root field of an operation, as the planner sees it. */
import type { ConnectionSelect } from './connection.ts';
import type { MutationRootField } from './mutation.ts';
import type { AggregateSelect, Select } from './select.ts';
import type { JsonDoc, ParamSource } from './value.ts';
import type { RemoteRootField } from './remote.ts';

/** A database read answered by one source. */
export type DbRootField =
  | { readonly kind: 'select'; readonly alias: string; readonly source: string; readonly select: Select; readonly stream?: StreamCursor }
  | { readonly kind: 'aggregate'; readonly alias: string; readonly source: string; readonly select: AggregateSelect }
  /** Relay: `<t>_connection` (ir/connection.ts). */
  | { readonly kind: 'connection'; readonly alias: string; readonly source: string; readonly select: ConnectionSelect }
  /** A source's root fields under its customization namespace: `{"<ns>": {<fields>}}`, all of that source. */
  | { readonly kind: 'namespace'; readonly alias: string; readonly source: string; readonly fields: readonly RootField[] };

/**
 * A streaming subscription's cursor (`<t>_stream`): the select reads rows
 * past the value bound to the variable {@link STREAM_CURSOR_VARIABLE}, in
 * cursor order, and each row carries the cursor column under
 * {@link STREAM_CURSOR_ALIAS}, which engine/subscriptions/ reads to advance
 * the cursor and removes before sending.
 */
export interface StreamCursor {
  readonly column: string;
  /** The first value (the `initial_value` argument). */
  readonly initial: ParamSource;
}

/** The variable a stream's cursor is bound through (not a name a client can declare: `__` is reserved). */
export const STREAM_CURSOR_VARIABLE = '__engine_stream_cursor';
/** The key of the cursor column in each row of a stream's result. */
export const STREAM_CURSOR_ALIAS = '__engine_cursor';

/** A root field whose JSON is known when the plan is built. */
export interface StaticRootField {
  readonly kind: 'static';
  readonly alias: string;
  /** JSON text of the value (`"query_root"`, an introspection result). */
  readonly json: string;
}

/** A root field of a query or subscription. */
export type QueryRootField = DbRootField | StaticRootField;

/** Any root field of the database side. */
export type RootField = QueryRootField | MutationRootField;

/**
 * Any root field of an operation: the database's, an action's, or a remote
 * schema's. Actions and remote fields are planned as steps of their own
 * (execute/plan.ts, Note [Plan steps]).
 */
export type OperationField = RootField | ActionRootField | RemoteRootField;

/** True when `f` is answered by a remote schema. */
export function isRemoteField(f: OperationField): f is RemoteRootField {
  return f.kind === 'remote' || f.kind === 'remote-namespace';
}

/** What a client selected of an action's output: a leaf value, or an object's fields. */
export type ActionSelection = { readonly kind: 'leaf' } | { readonly kind: 'object'; readonly fields: readonly ActionSelectedField[] };

/** One selected field of an action's output object. */
export type ActionSelectedField =
  | { readonly kind: 'field'; readonly alias: string; readonly name: string; readonly selection: ActionSelection }
  | { readonly kind: 'typename'; readonly alias: string; readonly typename: string }
  /** A relationship to a table: `index` into the field's `relationships`. */
  | { readonly kind: 'relationship'; readonly alias: string; readonly index: number };

/**
 * The rows of one relationship field of an action's output: a read of the
 * target table (the caller's permission folded in) filtered to the join keys
 * found in the handler's answer, which are bound as the variables `keyVariables`.
 * Rows are matched back by the columns selected as `keyAliases`.
 */
export interface ActionRelationshipRead {
  /** `aggregate`: a `<rel>_aggregate` field, read as an array relationship's key tuples with the aggregate under {@link ACTION_ROWS_ALIAS}. */
  readonly type: 'object' | 'array' | 'aggregate';
  readonly source: string;
  /** Output object field → table column. */
  readonly fieldMapping: ReadonlyArray<readonly [string, string]>;
  readonly keyVariables: readonly string[];
  readonly keyAliases: readonly string[];
  /**
   * A select root field of the target table: its rows with the key columns
   * (object), or its distinct key tuples, each with its rows under
   * {@link ACTION_ROWS_ALIAS} (array; limit and offset per tuple).
   */
  readonly read: DbRootField;
}

/** Where an array relationship's read puts each key tuple's rows. */
export const ACTION_ROWS_ALIAS = '__rows';

/**
 * An action root field: a synchronous call (`sync`), an asynchronous
 * action's submission (`async-submit`: answers its id) or result query
 * (`async-result`).
 */
export interface ActionRootField {
  readonly kind: 'action';
  readonly alias: string;
  readonly action: string;
  readonly mode: 'sync' | 'async-submit' | 'async-result';
  /** The arguments object sent as `input` (async-result: `{id}`). */
  readonly input: JsonDoc;
  readonly selection: ActionSelection;
  readonly relationships: readonly ActionRelationshipRead[];
  /** The operation text sent as `request_query`. */
  readonly requestQuery: string;
  /** The root type it was selected on: mutation fields run in order with the database writes. */
  readonly operation: 'query' | 'mutation';
}

/** True when `f` writes (a mutation field, or a namespace holding one). */
export function isMutationField(f: RootField): boolean {
  return f.kind === 'mutation' || (f.kind === 'namespace' && f.fields.some(isMutationField));
}
