/** A root field of an operation, as the planner sees it. */
import type { MutationRootField } from './mutation.ts';
import type { AggregateSelect, Select } from './select.ts';
import type { ParamSource } from './value.ts';
import type { RemoteRootField } from './remote.ts';

/** A database read answered by one source. */
export type DbRootField =
  | { readonly kind: 'select'; readonly alias: string; readonly source: string; readonly select: Select; readonly stream?: StreamCursor }
  | { readonly kind: 'aggregate'; readonly alias: string; readonly source: string; readonly select: AggregateSelect }
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

/** Any root field: a remote schema's root fields are planned apart from the databases' (execute/plan.ts). */
export type RootField = QueryRootField | MutationRootField | RemoteRootField;

/** True when `f` is answered by a remote schema. */
export function isRemoteField(f: RootField): f is RemoteRootField {
  return f.kind === 'remote' || f.kind === 'remote-namespace';
}

/** True when `f` writes (a mutation field, or a namespace holding one). */
export function isMutationField(f: RootField): boolean {
  return f.kind === 'mutation' || (f.kind === 'namespace' && f.fields.some(isMutationField));
}
