/**
 * The shape of a metadata operation and the context it runs in. An operation
 * validates its args, checks preconditions against the current state, and
 * either answers (read) or applies a pure edit through
 * {@link RunContext.commitEdit}, declaring the effects that must happen with
 * the store's commit (Note [Effects] in effects.ts). See run.ts for the
 * pipeline around it.
 */
import type { EngineError } from '../errors/engine-error.ts';
import type { MetadataObjectRef } from '../catalog/object-id.ts';
import type { PreparedSource, PreparedSources } from '../catalog/prepared.ts';
import type { Catalog } from '../catalog/types.ts';
import type { ApiFamily } from '../api/contract.ts';
import type { MetadataDocument } from '../model/document.ts';
import type { Refresh, SourcePreparer } from '../backends/source-preparer.ts';
import type { TableNaming } from '../backends/backend.ts';
import type { MetadataTransaction } from '../backends/metadata-database.ts';
import type { Effect } from './effects.ts';
import type { PreparedRemoteSchemas } from '../remote/remote-preparer.ts';
import type { ScheduledEventsApi } from '../events/scheduled/scheduled-events-api.ts';

/** The metadata in force (or pending inside a call): document, version, catalog, prepared sources. */
export interface MetadataState {
  readonly doc: MetadataDocument;
  readonly resourceVersion: number;
  readonly catalog: Catalog;
  readonly prepared: PreparedSources;
  /** Remote schemas as introspected (remote/remote-preparer.ts; Note [Preparers]). */
  readonly remotes: PreparedRemoteSchemas;
}

/** One call as it came in: `{type, args, version?}`, with where it sits in the request. */
export interface MetadataCall {
  readonly type: string;
  readonly args: unknown;
  readonly version: number | undefined;
  /** JSON path of this call in the request body: `$`, or `$.args[2]` inside a bulk. */
  readonly path: string;
  /** True for the legacy `/v1/query` and `/v2/query` APIs. */
  readonly legacy: boolean;
}

/** A pure edit of the document plus what it means for the inconsistency check. */
export interface Edit {
  readonly doc: MetadataDocument;
  /** Objects the call creates or changes: if one of these is newly inconsistent, the call fails with its reason. */
  readonly touched: readonly MetadataObjectRef[];
  /**
   * For drops: other objects that become inconsistent are dependents. Without
   * `cascade` the call fails with `dependency-error`; with it they are removed.
   */
  readonly drop?: { readonly cascade: boolean };
  /** Sources to introspect afresh before building. */
  readonly refresh?: Refresh;
  /** Remote schemas to introspect afresh before building (reload_remote_schema, reload_metadata). */
  readonly refreshRemotes?: Refresh;
  /**
   * Sources already prepared for this edit (run_sql: introspected inside its
   * transaction); they are used as they are and count as introspected afresh.
   */
  readonly prepared?: ReadonlyMap<string, PreparedSource>;
  /** Accept every new inconsistency (replace_metadata with allow_inconsistent_metadata, reload). */
  readonly allowInconsistency?: boolean;
  /** JSON path reported when the edit is refused (`$.args`). */
  readonly path: string;
}

/** What a call answers; `status` defaults to 200. */
export interface CallResult {
  readonly response: unknown;
  readonly status?: number;
}

/** Where an operation runs: the pending state of this request and the means to change it. */
export interface RunContext {
  readonly api: ApiFamily;
  /** The state as it stands after the calls so far in this request. */
  readonly state: MetadataState;
  /** Prepares, builds and checks an edit, and makes it the pending state. */
  commitEdit(edit: Edit): Promise<MetadataState>;
  /** Runs one call (bulk uses this for its items). */
  runCall(call: MetadataCall): Promise<CallResult>;
  /**
   * Runs `fn` with catalog builds deferred: plain edits only change the
   * document, and one build at the end checks them all, blaming the first
   * call that touched a newly inconsistent object. See Note [Deferred builds] in run.ts.
   */
  batch<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `fn` and checks what it did (its deferred edits built); when that
   * fails with an EngineError, the pending state is put back as it was and
   * the error is returned instead of thrown. An attempt that declared an
   * effect cannot be put back: its error is thrown (Note [Attempts] in run.ts).
   */
  attempt<T>(fn: () => Promise<T>): Promise<{ readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: EngineError }>;
  /**
   * The effect with `key` declared earlier in this request, or the one
   * `open` makes (declared from then on). See Note [Effects] in effects.ts.
   */
  effect<E extends Effect>(key: string, open: () => Promise<E>): Promise<E>;
  /** The effects declared so far in this request, in order. */
  readonly effects: readonly Effect[];
  /** The URL of the metadata database (run_sql commits with the store when its source is that database). */
  readonly metadataDatabaseUrl: string;
  /** Brings `state.catalog` up to date with `state.doc` (operations that read the catalog call this first). */
  flush(): Promise<void>;
  /** The URL of the `default` source given at start, if any (clear_metadata keeps that source). */
  readonly defaultDatabaseUrl: string | null;
  /** Services run_sql needs (connections); see operations/sql/run-sql.ts. */
  readonly sql: RunSqlServices;
  /** Stored data of asynchronous actions (drop_action's `clear_data`); absent where none is kept. */
  readonly actionData?: ActionDataServices;
  /** The scheduled events store (cron fire times, one-off events); null when the engine runs without one. */
  readonly scheduledEvents: ScheduledEventsApi | null;
}

/** What drop_action needs of the asynchronous action store. */
export interface ActionDataServices {
  /**
   * Deletes every stored request and result of the action, in the metadata
   * database's transaction `tx` (an effect's `inStoreTransaction`, Note [Effects]).
   */
  clearIn(tx: MetadataTransaction, action: string): Promise<void>;
}

/** What run_sql needs from the service: the source's connection and a way to prepare from in-transaction introspection. */
export interface RunSqlServices {
  readonly preparer: SourcePreparer;
}

/** A metadata operation. */
export interface Operation {
  /** Whether success changes stored metadata (a write). */
  readonly mutates: boolean;
  run(ctx: RunContext, call: MetadataCall): Promise<CallResult>;
}

/**
 * What a backend operation (`pg_track_table`, legacy `track_table`) is given
 * about the source it acts on, found once by the registry's source lookup
 * (Note [Operation prefix and source kind] in registry.ts).
 */
export interface OnSource {
  /**
   * How the source's backend names tables and functions: operations parse
   * the names of their args and print names with it (Note [Source naming] in
   * catalog/source-naming.ts). The backend of the operation's prefix when the
   * source does not exist (the operation then answers `not-exists`).
   */
  readonly naming: TableNaming;
  /** How the backend's computed fields take their inputs (Backend.computedFieldInputs). */
  readonly computedFieldInputs?: 'argument-mapping';
}

/** A backend operation: it runs with what the registry found about its source ({@link OnSource}). */
export interface SourceOperation {
  readonly mutates: boolean;
  run(ctx: RunContext, call: MetadataCall, on: OnSource): Promise<CallResult>;
}

/** The JSON path of an argument of `call` (`$.args.table`, or `$.args[2].args.table` in a bulk). */
export function argPath(call: MetadataCall, ...keys: readonly string[]): string {
  const base = call.path === '$' ? '$.args' : `${call.path}.args`;
  return keys.length === 0 ? base : `${base}.${keys.join('.')}`;
}

/** v2 compat: the answer of a successful write. */
export const SUCCESS = { message: 'success' } as const;
