/**
 * The pipeline of one metadata call (architecture.md, "One metadata call"):
 * the registry finds the operation, which validates its args and checks its
 * preconditions; a write applies a pure edit, and {@link CallPipeline.commitEdit}
 * prepares the sources, builds the catalog and compares inconsistencies with
 * the state before. The pipeline only holds the pending state; storing it is
 * the service's job, once, after the whole request (a `bulk` included) succeeded.
 */
import type { ScheduledEventsApi } from '../events/scheduled/scheduled-events-api.ts';
import { buildCatalog } from '../catalog/build.ts';
import { dependentsMessage, newInconsistencies } from '../catalog/dependencies.ts';
import { objectId } from '../catalog/object-id.ts';
import type { CatalogVersions } from '../catalog/version.ts';
import type { QueryChecker } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, isEngineError } from '../errors/engine-error.ts';
import type { ApiFamily } from '../api/contract.ts';
import type { Introspector } from '../backends/backend.ts';
import { cascade } from './cascade.ts';
import type { Effect } from './effects.ts';
import type { ActionDataServices, CallResult, Edit, MetadataCall, MetadataState, RunContext, RunSqlServices } from './operation.ts';
import { resolveOperation } from './registry.ts';
import type { Refresh, SourcePreparer } from '../backends/source-preparer.ts';
import { wireInconsistencies } from './operations/manage/inconsistent-objects.ts';
import type { RemoteSchemaPreparer } from '../remote/remote-preparer.ts';

/*
 * Note [Deferred builds]
 * A bulk of N calls would build the catalog N times, which is quadratic in the
 * number of tables for a bulk that tracks a whole database. Inside a bulk
 * (see `batch`), a plain edit (no drop, refresh or tolerated inconsistency)
 * only replaces the pending document and remembers what it touched. The next
 * eager edit, an operation that reads the catalog (`flush`), or the end of the
 * bulk builds once and compares with the catalog from before the deferred
 * edits: a newly inconsistent object is blamed on the first deferred call
 * that touched it, with that call's path; anything else is "cannot continue".
 */

/** Options of a {@link CallPipeline}. */
export interface CallPipelineOptions {
  readonly api: ApiFamily;
  readonly state: MetadataState;
  readonly preparer: SourcePreparer;
  readonly remotePreparer: RemoteSchemaPreparer;
  readonly defaultDatabaseUrl: string | null;
  readonly metadataDatabaseUrl: string;
  /** Numbers the catalogs this pipeline builds (catalog/version.ts). */
  readonly catalogVersions: CatalogVersions;
  /** Validates stored queries against the admin schema (catalog/build.ts). */
  readonly checkQueries?: QueryChecker | undefined;
  /** The asynchronous action store, when the engine runs one (drop_action's `clear_data`). */
  readonly actionData?: ActionDataServices;
  readonly scheduledEvents: ScheduledEventsApi | null;
}

/** Runs the calls of one request against a pending state. */
export class CallPipeline implements RunContext {
  readonly api: ApiFamily;
  readonly defaultDatabaseUrl: string | null;
  readonly metadataDatabaseUrl: string;
  readonly sql: RunSqlServices;
  readonly actionData?: ActionDataServices;
  readonly scheduledEvents: ScheduledEventsApi | null;
  readonly #initial: MetadataState;
  readonly #preparer: SourcePreparer;
  readonly #remotePreparer: RemoteSchemaPreparer;
  readonly #catalogVersions: CatalogVersions;
  readonly #checkQueries: QueryChecker | undefined;
  #state: MetadataState;
  #refreshed: Set<string> | 'all' = new Set();
  #batchDepth = 0;
  readonly #effects = new Map<string, Effect>();
  /** Deferred edits since the catalog was last built. */
  #deferred: Array<{ readonly touched: ReadonlySet<string>; readonly path: string }> = [];

  constructor(opts: CallPipelineOptions) {
    this.api = opts.api;
    this.defaultDatabaseUrl = opts.defaultDatabaseUrl;
    this.metadataDatabaseUrl = opts.metadataDatabaseUrl;
    if (opts.actionData !== undefined) this.actionData = opts.actionData;
    this.#initial = opts.state;
    this.#state = opts.state;
    this.#preparer = opts.preparer;
    this.#remotePreparer = opts.remotePreparer;
    this.#catalogVersions = opts.catalogVersions;
    this.#checkQueries = opts.checkQueries;
    this.sql = { preparer: opts.preparer };
    this.scheduledEvents = opts.scheduledEvents;
  }

  /** The pending state. */
  get state(): MetadataState {
    return this.#state;
  }

  /** Whether any call changed the state (and it must be stored). */
  get changed(): boolean {
    return this.#state !== this.#initial;
  }

  /** Sources introspected afresh during this request (other instances must do the same). */
  get refreshed(): Refresh {
    return this.#refreshed;
  }

  /** The effects declared by the calls so far, in order; see Note [Effects] in effects.ts. */
  get effects(): readonly Effect[] {
    return [...this.#effects.values()];
  }

  async effect<E extends Effect>(key: string, open: () => Promise<E>): Promise<E> {
    const known = this.#effects.get(key);
    if (known !== undefined) return known as E;
    const made = await open();
    this.#effects.set(key, made);
    return made;
  }

  /** Clients of databases with a transaction open in this request, by configuration key. */
  #via(): ReadonlyMap<string, Introspector> {
    const out = new Map<string, Introspector>();
    for (const e of this.#effects.values()) if (e.database !== undefined) out.set(e.database.configKey, e.database.introspector);
    return out;
  }

  /** Runs one call. */
  async runCall(call: MetadataCall): Promise<CallResult> {
    const op = resolveOperation(this.api, call);
    return await op.run(this, call);
  }

  /** Makes `next` the pending state. */
  #setState(next: MetadataState, refreshed: Refresh): void {
    this.#noteRefresh(refreshed);
    this.#state = next;
  }

  #noteRefresh(r: Refresh): void {
    if (this.#refreshed === 'all') return;
    if (r === 'all') this.#refreshed = 'all';
    else for (const s of r) this.#refreshed.add(s);
  }

  async #build(edit: Edit, doc = edit.doc): Promise<MetadataState> {
    const refresh = edit.refresh ?? new Set<string>();
    let current = this.#state.prepared;
    if (edit.prepared !== undefined) current = new Map([...current, ...edit.prepared]);
    const [prepared, remotes] = await Promise.all([
      this.#preparer.prepare(doc, current, refresh, this.#via()),
      this.#remotePreparer.prepare(doc, this.#state.remotes, edit.refreshRemotes),
    ]);
    const catalog = buildCatalog(
      doc,
      prepared,
      { version: this.#catalogVersions.next(), resourceVersion: this.#state.resourceVersion + 1 },
      this.#checkQueries,
      remotes,
      this.#state.catalog,
    );
    return { doc, resourceVersion: this.#state.resourceVersion, catalog, prepared, remotes };
  }

  /** Runs `fn` with builds deferred; see Note [Deferred builds]. */
  async batch<T>(fn: () => Promise<T>): Promise<T> {
    this.#batchDepth += 1;
    try {
      const result = await fn();
      if (this.#batchDepth === 1) await this.flush();
      return result;
    } finally {
      this.#batchDepth -= 1;
    }
  }

  /*
   * Note [Attempts]
   * `pg_track_tables` keeps what can be tracked and reports the rest (v2's
   * warnings): it tracks its tables as one deferred bulk and, when a table
   * makes that fail, drops it and tries the others again; `bulk_keep_going`
   * keeps the calls that succeed (Note [Bulk that keeps going] in
   * operations/manage/bulk.ts). `attempt` makes that possible: it first
   * builds what earlier calls deferred (so their errors stay theirs),
   * remembers the pending state, runs `fn` and builds its deferred edits; on
   * an EngineError it puts the state back. Effects are
   * outside the pending state (a transaction on a source): an attempt that
   * declared one throws its error instead of pretending to undo it.
   */
  async attempt<T>(fn: () => Promise<T>): Promise<{ readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: EngineError }> {
    await this.flush();
    const state = this.#state;
    const refreshed = this.#refreshed === 'all' ? 'all' : new Set(this.#refreshed);
    const effects = this.#effects.size;
    try {
      const value = await fn();
      await this.flush();
      return { ok: true, value };
    } catch (e) {
      if (!isEngineError(e) || this.#effects.size !== effects) throw e;
      this.#state = state;
      this.#refreshed = refreshed;
      this.#deferred = [];
      return { ok: false, error: e };
    }
  }

  /** Builds the catalog for the deferred edits and checks them; see Note [Deferred builds]. */
  async flush(): Promise<void> {
    if (this.#deferred.length === 0) return;
    const deferred = this.#deferred;
    this.#deferred = [];
    const next = await this.#build({ doc: this.#state.doc, touched: [], path: '$' });
    const added = newInconsistencies(this.#state.catalog, next.catalog);
    for (const d of deferred) {
      const mine = added.filter((o) => d.touched.has(o.id));
      if (mine.length > 0) {
        throw new EngineError(ErrorCode.InvalidConfiguration, mine.map((o) => o.reason).join(', '), {
          path: d.path,
          internal: wireInconsistencies(mine),
        });
      }
    }
    if (added.length > 0) {
      throw new EngineError(ErrorCode.Unexpected, 'cannot continue due to new inconsistent metadata', {
        path: deferred[deferred.length - 1]?.path ?? '$',
        status: 400,
        internal: wireInconsistencies(added),
      });
    }
    this.#state = next;
  }

  /** Prepares, builds and checks an edit; on success it becomes the pending state. */
  async commitEdit(edit: Edit): Promise<MetadataState> {
    const plain =
      edit.drop === undefined &&
      edit.refresh === undefined &&
      edit.refreshRemotes === undefined &&
      edit.prepared === undefined &&
      edit.allowInconsistency !== true;
    if (this.#batchDepth > 0 && plain) {
      this.#deferred.push({ touched: new Set(edit.touched.map(objectId)), path: edit.path });
      this.#state = { ...this.#state, doc: edit.doc };
      return this.#state;
    }
    await this.flush();
    let next = await this.#build(edit);
    if (edit.allowInconsistency !== true) {
      const before = this.#state.catalog;
      const added = newInconsistencies(before, next.catalog);
      const touched = new Set(edit.touched.map(objectId));
      const mine = added.filter((o) => touched.has(o.id));
      if (mine.length > 0) {
        // v2 compat: the touched object's own reasons, with the objects in `internal`; the code
        // is the objects' own when they agree on one (Note [Remote schema error codes] in remote/introspect.ts).
        const code = mine.every((o) => o.code !== undefined && o.code === mine[0]?.code)
          ? (mine[0]?.code ?? ErrorCode.InvalidConfiguration)
          : ErrorCode.InvalidConfiguration;
        throw new EngineError(code, mine.map((o) => o.callMessage ?? o.reason).join(', '), {
          path: edit.path,
          internal: wireInconsistencies(mine),
        });
      }
      if (added.length > 0 && edit.drop !== undefined) {
        if (!edit.drop.cascade) {
          throw new EngineError(ErrorCode.DependencyError, dependentsMessage(added), {
            path: edit.path,
            internal: wireInconsistencies(added),
          });
        }
        next = await cascade(before, next, async (doc) => await this.#build(edit, doc));
      }
      const left = newInconsistencies(before, next.catalog);
      if (left.length > 0) {
        throw new EngineError(ErrorCode.Unexpected, 'cannot continue due to new inconsistent metadata', {
          path: edit.path,
          status: 400,
          internal: wireInconsistencies(left),
        });
      }
    }
    this.#setState(next, edit.refresh ?? new Set());
    // Remote schemas introspected afresh are announced with the sources, so other instances do the same.
    if (edit.refreshRemotes !== undefined) this.#noteRefresh(edit.refreshRemotes);
    if (edit.prepared !== undefined) this.#noteRefresh(new Set(edit.prepared.keys()));
    return next;
  }
}
