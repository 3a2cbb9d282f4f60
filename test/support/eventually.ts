// Bounded polling for tests: one loop instead of a local `until`/`waitFor`/`poll` per file.
//
// Note [Bounded polling in tests]
// A test that waits for something (a port, a condition, a log line, a Lease) retries a check
// until it passes or a bound is hit, never sleeps a fixed time. When the bound is hit it fails
// with what it waited for, the last error (or value) the check gave, and the context the caller
// adds (a process's output), so a timeout says why. A check that cannot pass any more (the
// process under test exited) ends the wait at once through `giveUp`.

/** How long and how often to retry, and what to say when the bound is hit. */
export interface EventuallyOptions {
  /** What is waited for, e.g. `the Lease held by the controller` (goes into the failure). */
  readonly what: string;
  /** The bound (default 30 s). */
  readonly timeoutMs?: number;
  /** The pause between tries (default 200 ms). */
  readonly intervalMs?: number;
  /** More text for the failure, e.g. the tail of a process's output; read only when failing. */
  readonly context?: () => string;
  /** A reason to stop waiting now (e.g. the process exited), or undefined to go on; checked before each try. */
  readonly giveUp?: () => string | undefined;
}

const describeValue = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

async function poll<T>(fn: () => T | Promise<T>, passed: (v: T) => boolean, opts: EventuallyOptions): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 200, context, giveUp } = opts;
  const deadline = Date.now() + timeoutMs;
  const fail = (message: string, cause: unknown): Error => {
    const extra = context?.() ?? '';
    return new Error(extra === '' ? message : `${message}\n${extra}`, cause === undefined ? undefined : { cause });
  };
  let last: unknown;
  let lastError: unknown;
  for (;;) {
    const reason = giveUp?.();
    if (reason !== undefined) throw fail(`gave up waiting for ${what}: ${reason}`, lastError);
    try {
      const v = await fn();
      if (passed(v)) return v;
      last = `last value: ${describeValue(v)}`;
      lastError = undefined;
    } catch (e) {
      lastError = e;
      last = `last error: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (Date.now() > deadline) {
      throw fail(`timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : ` (${String(last)})`}`, lastError);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Retries `fn` until it passes: it returns without throwing (an assertion, e.g. one with
 * `expect`) and does not return `false` (a predicate). Resolves to what `fn` returned.
 */
export function eventually<T>(fn: () => T | Promise<T>, opts: EventuallyOptions): Promise<Exclude<T, false>> {
  return poll(fn, (v) => v !== false, opts) as Promise<Exclude<T, false>>;
}

/**
 * Retries `fn` until it returns a value: anything but `undefined`, `null` or `false` (a lookup
 * that finds nothing yet returns one of those); thrown errors are retried too. Resolves to the value.
 */
export function eventuallyValue<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, opts: EventuallyOptions): Promise<T> {
  return poll(fn, (v) => v !== undefined && v !== null && v !== false, opts) as Promise<T>;
}
