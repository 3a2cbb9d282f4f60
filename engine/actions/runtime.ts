/**
 * What running actions needs beyond the plan: the asynchronous action store
 * (the metadata database) and its worker. One per engine, made by boot.ts.
 *
 * Note [Async action worker]: a submission is a row written before the
 * mutation answers with its id, so an accepted action survives the engine.
 * The worker of every engine claims pending rows (Note [Async action
 * leases] in backends/postgres/metadata-db/action-storage.ts), calls the handler, checks
 * the output and stores the result or the error. It wakes at once when this
 * engine accepts a submission and polls every `pollMs` otherwise (for rows
 * of other engines and rows whose worker died). At most `concurrency` calls
 * run at once.
 */
import { randomUUID } from 'node:crypto';
import { actionStorage, type MetadataDatabase } from '../backends/registry.ts';
import type { ChannelSubscription, MetadataTransaction } from '../backends/metadata-database.ts';
import type { CatalogRef } from '../catalog/snapshot.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, errorDetails, isEngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';
import type { AsyncMetrics } from '../observability/metrics.ts';
import { callHandler } from './handler.ts';
import { checkOutput } from './output.ts';

type Storage = Awaited<ReturnType<typeof actionStorage.openActionStorage>>;
type StoredAction = NonNullable<Awaited<ReturnType<Storage['read']>>>;

export interface ActionRuntimeOptions {
  /** The metadata database (Note [Metadata database]), opened and closed by the caller. */
  readonly metadataDatabase: MetadataDatabase;
  readonly catalogRef: CatalogRef;
  readonly logger: Logger;
  readonly pollMs?: number;
  readonly concurrency?: number;
  /** Where handler calls are counted (Note [Async metrics]). */
  readonly metrics?: AsyncMetrics;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The asynchronous action store and its worker. */
export class ActionRuntime {
  readonly #storage: Storage;
  readonly #catalogRef: CatalogRef;
  readonly #logger: Logger;
  readonly #metrics: AsyncMetrics | undefined;
  readonly #pollMs: number;
  readonly #concurrency: number;
  readonly #workerId = randomUUID();
  #running = 0;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #polling = false;
  #again = false;
  readonly #inFlight = new Set<Promise<void>>();
  /** Result watchers by action id (Note [Action result notifications]). */
  readonly #watchers = new Map<string, Set<() => void>>();
  #listener: Promise<ChannelSubscription> | null = null;

  private constructor(storage: Storage, opts: ActionRuntimeOptions) {
    this.#storage = storage;
    this.#catalogRef = opts.catalogRef;
    this.#logger = opts.logger;
    this.#metrics = opts.metrics;
    this.#pollMs = opts.pollMs ?? 1000;
    this.#concurrency = opts.concurrency ?? 16;
  }

  /** Opens the store (creating its table) and starts the worker. */
  static async start(opts: ActionRuntimeOptions): Promise<ActionRuntime> {
    const rt = new ActionRuntime(await actionStorage.openActionStorage(opts.metadataDatabase), opts);
    rt.#schedule(0);
    return rt;
  }

  /** Stores a submission and returns its id; the worker picks it up. */
  async submit(
    action: string,
    input: unknown,
    sessionVariables: Readonly<Record<string, string>>,
    requestQuery: string,
    headers: Record<string, string>,
  ): Promise<string> {
    const id = randomUUID();
    await this.#storage.insert({ id, action, input, sessionVariables, requestHeaders: headers, requestQuery });
    this.#schedule(0);
    return id;
  }

  /**
   * The stored action `id` of `action`, when the session asking is the one
   * that submitted it (same role and session variables, as v2); else null.
   */
  async result(action: string, id: unknown, sessionVariables: Readonly<Record<string, string>>): Promise<StoredAction | null> {
    if (typeof id !== 'string' || !UUID.test(id)) {
      throw new EngineError(ErrorCode.ValidationFailed, `invalid uuid: ${JSON.stringify(id)}`, { path: '$.args.id', status: 200 });
    }
    const row = await this.#storage.read(id, action);
    if (row === null || !sameSession(row.sessionVariables, sessionVariables)) return null;
    return row;
  }

  /**
   * Calls `changed` each time a result or an error of action `id` is stored,
   * by any engine (Note [Action result notifications] in
   * backends/postgres/metadata-db/action-storage.ts), and for every id when
   * notifications may have been missed (the listening connection lost, and
   * back). Returns the function that stops it. Read the result after
   * `listening()` resolves: nothing stored from then on is missed.
   */
  watch(id: string, changed: () => void): () => void {
    let set = this.#watchers.get(id);
    if (set === undefined) {
      set = new Set();
      this.#watchers.set(id, set);
    }
    const fn = (): void => changed();
    set.add(fn);
    void this.listening();
    return () => {
      const s = this.#watchers.get(id);
      if (s === undefined) return;
      s.delete(fn);
      if (s.size === 0) this.#watchers.delete(id);
    };
  }

  /** Resolves once the result subscription made its first attempt to listen (the connection retries by itself after a failure). */
  async listening(): Promise<void> {
    if (this.#closed) return;
    this.#listener ??= this.#storage.listen(
      (id) => this.#notify(this.#watchers.get(id)),
      () => {
        for (const set of [...this.#watchers.values()]) this.#notify(set);
      },
    );
    await this.#listener;
  }

  #notify(set: Set<() => void> | undefined): void {
    if (set === undefined) return;
    for (const fn of [...set]) {
      try {
        fn();
      } catch (e) {
        this.#logger.warn('async action result watcher failed', { error: errorDetails(e) });
      }
    }
  }

  /** Deletes an action's stored submissions in the metadata store's transaction `tx` (drop_action's `clear_data`). */
  async clearIn(tx: MetadataTransaction, action: string): Promise<void> {
    await this.#storage.clearIn(tx, action);
  }

  /** Submissions not yet done (tests). */
  async pending(): Promise<number> {
    return await this.#storage.pending();
  }

  /** Stops the worker and waits for the calls in flight (the metadata database stays open for its owner to close). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    await Promise.allSettled([...this.#inFlight]);
    this.#watchers.clear();
    if (this.#listener !== null) (await this.#listener).close();
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    if (ms === 0 && this.#polling) {
      this.#again = true;
      return;
    }
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#poll();
    }, ms);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    if (this.#closed) return;
    this.#polling = true;
    this.#again = false;
    try {
      const free = this.#concurrency - this.#running;
      const actions = this.#catalogRef.current.actions?.actions;
      // No asynchronous action defined: nothing can be pending for this engine to run.
      const anyAsync = actions !== undefined && [...actions.values()].some((a) => a.kind === 'asynchronous');
      if (free > 0 && anyAsync) {
        const rows = await this.#storage.claim(this.#workerId, free, (name) => (actions?.get(name)?.timeoutMs ?? 30_000) / 1000 + 5);
        for (const row of rows) {
          this.#running++;
          const p = this.#process(row).finally(() => {
            this.#running--;
            this.#inFlight.delete(p);
            this.#schedule(0);
          });
          this.#inFlight.add(p);
        }
        if (rows.length === free) this.#again = true;
      }
    } catch (e) {
      if (!this.#closed) this.#logger.warn('async action worker could not poll', { error: errorDetails(e) });
    } finally {
      this.#polling = false;
      this.#schedule(this.#again ? 0 : this.#pollMs);
    }
  }

  async #process(row: Awaited<ReturnType<Storage['claim']>>[number]): Promise<void> {
    const catalog = this.#catalogRef.current.actions;
    const info = catalog?.actions.get(row.action);
    const started = performance.now();
    let ok = false;
    this.#metrics?.asyncInFlight('async_action', 1);
    try {
      if (info === undefined || catalog === undefined) throw new EngineError(ErrorCode.NotFound, `action "${row.action}" does not exist`);
      const output = await callHandler(info, {
        input: row.input,
        sessionVariables: row.sessionVariables,
        requestQuery: row.requestQuery,
        clientHeaders: row.requestHeaders,
      });
      checkOutput(info.name, output, info.outputType, catalog.customTypes);
      ok = true;
      await this.#storage.complete(row.id, output);
    } catch (e) {
      if (this.#closed && !isEngineError(e)) return; // shutting down: the lease runs out and another worker retries
      const err = isEngineError(e) ? e : new EngineError(ErrorCode.Unexpected, 'unexpected error');
      const errors = { message: err.message, extensions: err.extensions ?? { path: err.path, code: err.code } };
      try {
        await this.#storage.fail(row.id, errors);
      } catch (f) {
        this.#logger.warn('async action result could not be stored', { error: errorDetails(f) });
      }
    } finally {
      this.#metrics?.asyncInFlight('async_action', -1);
      this.#metrics?.asyncInvocation('async_action', row.action, ok, (performance.now() - started) / 1000);
    }
  }
}

function sameSession(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k] === b[k]);
}
