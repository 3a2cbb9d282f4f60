import type { Catalog } from './types.ts';

/**
 * Holds the current catalog snapshot. A metadata change builds a new snapshot
 * and swaps the reference; requests read `current` once and keep using that
 * snapshot, so a swap never changes a request mid-flight.
 */
export class CatalogRef {
  #current: Catalog;
  readonly #listeners = new Set<(c: Catalog) => void>();

  constructor(initial: Catalog) {
    this.#current = initial;
  }

  /** The snapshot in force. */
  get current(): Catalog {
    return this.#current;
  }

  /** Installs a new snapshot and tells the listeners (plan and schema caches). */
  swap(next: Catalog): void {
    this.#current = next;
    for (const l of this.#listeners) l(next);
  }

  /** Calls `fn` after every swap; returns the unsubscribe function. */
  subscribe(fn: (c: Catalog) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }
}
