/**
 * A PostgreSQL source connection to a test database, opened the way the
 * engine opens a source's (for tests that drive a backend's parts directly,
 * e.g. an event log, without an engine around them).
 */
import type { SourceConnection } from '../../engine/backends/backend.ts';
import { backendFor } from '../../engine/backends/registry.ts';

/** Connects to `url` as a PostgreSQL source with no statement timeout; the caller closes it. */
export function connectPostgresSource(url: string): SourceConnection {
  const pgb = backendFor('postgres');
  const resolved = pgb.configuration.resolve({ connection_info: { database_url: url } }, { env: () => undefined, statementTimeoutMs: 0 });
  if ('reason' in resolved) throw new Error(resolved.reason);
  return pgb.connect(resolved);
}
