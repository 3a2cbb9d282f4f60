/**
 * The backends registry: one {@link Backend} per source kind, and the only
 * module outside a dialect folder that imports one (lint enforces it; see
 * eslint.config.js).
 *
 * Note [Backend seam]
 * Everything the engine asks of a source database goes through a Backend
 * object (backend.ts): the source's `configuration` (its JSON schema, used by
 * `<prefix>_add_source` and the document schemas, and its resolution into
 * what `connect` takes, opaque to the preparer), the naming of its tables
 * (`naming`: default schema, parsing, printing, GraphQL base name), opening
 * pools (`connect`), introspection, the GraphQL
 * face of each database type (`scalar`: scalar name, operator family,
 * parameter encoding, aggregate classes, literal class, textual/JSON/sortable;
 * `types`: the types the IR carries for counts, booleans and text, so no
 * layer outside backends/ names a PostgreSQL type), capabilities (one flag
 * per thing the schema builder offers; a source's backend is `backendOf`),
 * the query, mutation
 * and explain compilers, turning database failures into Engine errors, and
 * `run_sql`; event triggers and live queries are optional members for the
 * issues that add them. SQL text is produced from fragments with the
 * dialect's syntax (sql/fragment.ts, `Dialect`).
 *
 *   metadata/ ── SourcePreparer ──▶ backendFor(kind).configuration.resolve / connect / introspector
 *   metadata/ <prefix>_add_source, replace_metadata ─▶ backend.configuration.schema
 *   catalog/ graphql/ names ──────▶ backendOf(source).naming
 *   catalog/ graphql/ ────────────▶ backendFor(kind).scalar(dbType)
 *   execute/ plan (cache miss) ───▶ backendFor(kind).compile.*
 *   execute/ run (errors only) ───▶ backendFor(conn.kind).toEngineError
 *
 * The plan-cache hit path makes no backend call: a plan holds compiled
 * statements and the source's connection, so a request binds and runs them
 * as before; the backend is looked up only to compile (on a miss) and to
 * classify a failure. Measured with `node test/bench/request-path.ts <url>
 * AlbumByPK admin 20000 4` on the Chinook bench database (2 shared, loaded
 * cores): engine CPU per request 30.6-36.9 µs user after the seam, 30.3-37.9
 * µs before it (same noise band). Adding a database is a folder with the same file names
 * as postgres/ and one entry below (bigquery/ is the read-only one: it
 * leaves out every optional member; its compilers read column types from the
 * `target` the query compilers are given). Prefixes without an entry
 * (`citus_`, `cockroach_`) are known to metadata (they answer `not-supported`)
 * but have no sources. The prefix of an operation picks the backend, and an
 * operation on a source of another kind is refused (Note [Operation prefix and
 * source kind] in metadata/registry.ts). What knows no backend (the wire
 * document, the console, the controller) reads v2's per-kind constants in
 * model/document.ts (`DEFAULT_SCHEMA`, kept equal to `naming.defaultSchema`
 * by test/unit/backends/configuration.test.ts).
 */
import type { SourceKind } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Backend } from './backend.ts';
import type { JsonSchema } from '../model/schemas/validate.ts';
import { bigqueryBackend } from './bigquery/index.ts';
import { mssqlBackend } from './mssql/index.ts';
import { postgresBackend } from './postgres/index.ts';

/** Every backend that exists, by kind. */
const BACKENDS: ReadonlyMap<SourceKind, Backend> = new Map<SourceKind, Backend>([
  [postgresBackend.kind, postgresBackend],
  [bigqueryBackend.kind, bigqueryBackend],
  [mssqlBackend.kind, mssqlBackend],
]);

/** The backend of `kind`, or undefined when it has none yet. */
export function findBackend(kind: SourceKind): Backend | undefined {
  return BACKENDS.get(kind);
}

/** The backend of `kind`; a source of a kind without one cannot exist, so its absence is an internal error. */
export function backendFor(kind: SourceKind): Backend {
  const b = BACKENDS.get(kind);
  if (b === undefined) throw new EngineError(ErrorCode.Unexpected, `no backend for source kind "${kind}"`);
  return b;
}

/**
 * The backend of a source: its own (SourceInfo.backend), else its kind's.
 * Code that has the source asks this rather than {@link backendFor}.
 */
export function backendOf(source: { readonly kind: SourceKind; readonly backend?: Backend }): Backend {
  return source.backend ?? backendFor(source.kind);
}

/** The `configuration` schema of each kind that has a backend (the engine's document schemas). */
export function configurationSchemas(): ReadonlyMap<SourceKind, JsonSchema> {
  return new Map([...BACKENDS].map(([kind, b]) => [kind, b.configuration.schema]));
}

/** Every backend, in the registry's order. */
export function allBackends(): readonly Backend[] {
  return [...BACKENDS.values()];
}

/** The backend whose metadata operations carry `prefix` (`pg_`), if one exists. */
export function backendWithPrefix(prefix: string): Backend | undefined {
  for (const b of BACKENDS.values()) if (b.operationPrefix === prefix) return b;
  return undefined;
}

/**
 * Where metadata is stored: always PostgreSQL (schema `engine_metadata`),
 * whatever the sources are: one {@link MetadataDatabase} per engine (Note
 * [Metadata database]), given to each storage function below.
 */
export { MetadataDatabase } from './postgres/metadata-db/database.ts';
export * as metadataStorage from './postgres/metadata-db/metadata-storage.ts';

/** Storage of asynchronous actions in the metadata database (actions/runtime.ts uses it). */
export * as actionStorage from './postgres/metadata-db/action-storage.ts';
export * as scheduledEventsStorage from './postgres/metadata-db/scheduled-events-storage.ts';
/** Each source's last introspection (Note [Stored introspection] in source-preparer.ts). */
export * as introspectionStorage from './postgres/metadata-db/introspection-storage.ts';
/** v2's catalog state (`get_catalog_state`/`set_catalog_state`: the project CLI's applied migrations). */
export * as catalogStateStorage from './postgres/metadata-db/catalog-state-storage.ts';
