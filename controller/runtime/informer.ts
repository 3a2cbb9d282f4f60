/**
 * A list-watch cache of one resource type that never gives up (operator-notes.md §3.6, §4.2):
 * - lists, then watches from the list's resourceVersion with bookmarks;
 * - a watch that ends normally (server timeout, watch.ts's inactivity timeout) resumes
 *   from the last seen resourceVersion;
 * - `410 Gone` (status or ERROR event) relists and diffs the cache, emitting deletes for objects
 *   that vanished meanwhile;
 * - any other error restarts the cycle after an exponential backoff (1 s doubling to 30 s,
 *   reset once a watch delivers events), or after the longer wait a 429/503 `Retry-After` asks
 *   for, so a broken or busy apiserver never causes a tight loop.
 * Handlers only receive the object and must not block: the controller turns them into queue keys.
 */
import { collectionPath, type KubeApi, type KubeList } from './kube-api.ts';
import { watch } from './watch.ts';

/** The part of an object the informer needs. */
export interface Watchable {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly resourceVersion?: string };
}

/** Event handlers. */
export interface InformerHandlers<T> {
  /** Added or changed (also on relist, for every object whose resourceVersion changed). */
  onUpsert(obj: T, previous: T | undefined): void;
  onDelete(obj: T): void;
  /** Called after each successful (re)list: the cache is complete. */
  onSynced?(): void;
  /** Watch trouble, for logs. */
  onError?(err: Error): void;
}

/** Which resource to watch. */
export interface InformerOptions {
  readonly apiVersion: string;
  readonly plural: string;
  /** Watch one namespace; all namespaces when undefined. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** Stamped on list items that come without `kind` (lists of built-in types omit it). */
  readonly kind?: string;
}

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

/** `namespace/name`. */
export function cacheKey(obj: Watchable): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

/** A self-healing list-watch cache. */
export class Informer<T extends Watchable> {
  readonly #api: KubeApi;
  readonly #opts: InformerOptions;
  readonly #handlers: InformerHandlers<T>;
  readonly #cache = new Map<string, T>();
  #resourceVersion: string | undefined;
  #abort: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #backoffMs = MIN_BACKOFF_MS;
  #stopped = true;
  #synced = false;
  /** How many times the informer (re)listed; for tests and metrics. */
  lists = 0;

  constructor(api: KubeApi, opts: InformerOptions, handlers: InformerHandlers<T>) {
    this.#api = api;
    this.#opts = opts;
    this.#handlers = handlers;
  }

  /** Starts listing and watching. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0, true);
  }

  /** Stops watching; the cache keeps its last content. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
  }

  /** True once the first list completed. */
  get synced(): boolean {
    return this.#synced;
  }

  /** One cached object. */
  get(namespace: string, name: string): T | undefined {
    return this.#cache.get(`${namespace}/${name}`);
  }

  /** Cached objects, optionally of one namespace. */
  list(namespace?: string): T[] {
    const all = [...this.#cache.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  #schedule(ms: number, relist: boolean): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#cycle(relist);
    }, ms);
  }

  #fail(err: Error, relist: boolean): void {
    this.#handlers.onError?.(err);
    // A 429/503 watch answer says how long to stay away (Note [Retry-After] in kube-api.ts).
    const delay = Math.max(this.#backoffMs, (err as { retryAfterMs?: number }).retryAfterMs ?? 0);
    this.#backoffMs = Math.min(MAX_BACKOFF_MS, this.#backoffMs * 2);
    this.#schedule(delay, relist);
  }

  async #cycle(relist: boolean): Promise<void> {
    if (this.#stopped) return;
    if (relist || this.#resourceVersion === undefined) {
      try {
        await this.#relist();
      } catch (e) {
        this.#fail(e as Error, true);
        return;
      }
    }
    await this.#watch();
  }

  async #relist(): Promise<void> {
    const base = collectionPath(this.#opts.apiVersion, this.#opts.plural, this.#opts.namespace);
    const items: T[] = [];
    let cont: string | undefined;
    let rv: string | undefined;
    do {
      const q = new URLSearchParams({ limit: '500' });
      if (cont !== undefined) q.set('continue', cont);
      if (this.#opts.labelSelector !== undefined) q.set('labelSelector', this.#opts.labelSelector);
      const page = await this.#api.request<KubeList<T>>('GET', `${base}?${q.toString()}`);
      for (const item of page.items) items.push(this.#stamp(item));
      rv = page.metadata.resourceVersion;
      cont = page.metadata.continue !== undefined && page.metadata.continue !== '' ? page.metadata.continue : undefined;
    } while (cont !== undefined);
    this.lists++;
    const seen = new Set<string>();
    for (const obj of items) {
      const k = cacheKey(obj);
      seen.add(k);
      const prev = this.#cache.get(k);
      this.#cache.set(k, obj);
      if (prev?.metadata.resourceVersion !== obj.metadata.resourceVersion) this.#handlers.onUpsert(obj, prev);
    }
    for (const [k, obj] of [...this.#cache]) {
      if (!seen.has(k)) {
        this.#cache.delete(k);
        this.#handlers.onDelete(obj);
      }
    }
    this.#resourceVersion = rv;
    this.#synced = true;
    this.#handlers.onSynced?.();
  }

  #stamp(item: T): T {
    const o = item as T & { kind?: string; apiVersion?: string };
    if (this.#opts.kind === undefined || o.kind !== undefined) return item;
    return { ...o, kind: this.#opts.kind, apiVersion: this.#opts.apiVersion };
  }

  async #watch(): Promise<void> {
    if (this.#stopped) return;
    const path = collectionPath(this.#opts.apiVersion, this.#opts.plural, this.#opts.namespace);
    let gone = false;
    let sawEvent = false;
    const onEvent = (phase: string, obj: unknown): void => {
      sawEvent = true;
      if (phase === 'ERROR') {
        const code = (obj as { code?: number }).code;
        if (code === 410) gone = true;
        return;
      }
      const o = obj as T;
      if (o.metadata?.resourceVersion !== undefined) this.#resourceVersion = o.metadata.resourceVersion;
      if (phase === 'BOOKMARK') return;
      const k = cacheKey(o);
      if (phase === 'DELETED') {
        this.#cache.delete(k);
        this.#handlers.onDelete(o);
        return;
      }
      const prev = this.#cache.get(k);
      this.#cache.set(k, o);
      this.#handlers.onUpsert(o, prev);
    };
    const onDone = (err: unknown): void => {
      this.#abort = undefined;
      if (this.#stopped) return;
      if (sawEvent) this.#backoffMs = MIN_BACKOFF_MS;
      const status = (err as { statusCode?: number; code?: number } | null)?.statusCode;
      if (gone || status === 410) {
        this.#resourceVersion = undefined;
        this.#schedule(0, true);
        return;
      }
      const name = (err as { name?: string } | null)?.name;
      if (err === null || err === undefined || name === 'TimeoutError' || name === 'AbortError') {
        // A normal end of a watch: resume from the last seen resourceVersion.
        this.#schedule(0, false);
        return;
      }
      this.#fail(err instanceof Error ? err : new Error(String(err)), true);
    };
    const query: Record<string, string | boolean> = { allowWatchBookmarks: true };
    if (this.#resourceVersion !== undefined) query['resourceVersion'] = this.#resourceVersion;
    if (this.#opts.labelSelector !== undefined) query['labelSelector'] = this.#opts.labelSelector;
    const abort = watch(this.#api.connection, path, query, onEvent, onDone);
    if (this.#stopped) abort.abort();
    else this.#abort = abort;
  }
}
