/**
 * A minimal async mutex: runs tasks one at a time, in arrival order.
 */

/** Serializes async tasks. */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after every task queued before it has settled. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn, fn);
    this.#tail = result.catch(() => {});
    return await result;
  }
}
