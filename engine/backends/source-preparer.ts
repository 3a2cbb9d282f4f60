/**
 * Prepares the sources of a document for a catalog build (see
 * catalog/prepared.ts): has each source's backend resolve its configuration,
 * opens or reuses a pool per distinct configuration, introspects, and reads enum table rows. What was
 * prepared before is reused unless the source's configuration changed or the
 * caller asks for a refresh (`reload_metadata`, `run_sql`). Each source's
 * backend connects and introspects (Note [Backend seam] in registry.ts);
 * sources of a kind without a backend are left out.
 */
import type { Backend, Introspector, SourceConnection } from './backend.ts';
import type { EnumTableRows, SourceIntrospection } from './introspection.ts';
import { findBackend, introspectionStorage, type MetadataDatabase } from './registry.ts';
import { introspectionText, parseIntrospectionText } from './stored-introspection.ts';
import type { ObjectPreparer, PreparedSource, PreparedSources, ReadySource, Refresh } from '../catalog/prepared.ts';
import { enumColumns } from '../catalog/stages/tables.ts';
import { sameData } from '../catalog/intern.ts';
import { tableKey } from '../catalog/types.ts';
import { resolveEnv } from '../cli/env.ts';
import type { Logger } from '../logger.ts';
import type { MetadataDocument, SourceMetadata } from '../model/document.ts';

/*
 * Note [Introspection freshness]
 * Tables, functions and foreign keys are often made outside the engine (psql,
 * migration tools, ORMs), and v2 sees them at once: every metadata operation
 * works on the database as it is now. Re-introspecting on every call would
 * give back the speed of tracking at scale, so what is re-read when is:
 *
 * - Before every metadata request (a `bulk` is one request), the service asks
 *   each ready source for its DDL stamp ({@link SourcePreparer.stale};
 *   postgres/ddl-stamp.ts, Note [DDL stamp]): one statement over the
 *   system catalogs, no rows of user tables. A source whose stamp differs
 *   from the one taken with its introspection (same snapshot) is introspected
 *   again whole, its enum tables' rows read again, and the catalog rebuilt and
 *   installed before the request runs. So `pg_track_table`, `pg_track_function`,
 *   relationships on a new foreign key and permissions naming a new column
 *   see what a migration just made, and an object that DDL broke (a dropped
 *   column) is reported as inconsistent by that request, which is not refused
 *   for it (it compares against the refreshed state). The sources re-read are
 *   announced with the stored change, so other instances re-read them too.
 * - `run_sql` introspects inside its own transaction (unchanged), so its
 *   stamp already covers its own DDL; `reload_metadata` and a changed source
 *   configuration re-read unconditionally, as before.
 * - At start, the introspection stored by the last instance is used instead
 *   of a read when the stamp (and the database's identity) still match
 *   (Note [Stored introspection]); otherwise the source is read as here.
 * - A backend without a DDL stamp (Introspector.ddlStamp is optional) has its
 *   sources re-read before every metadata request: correct, only slower.
 * - Not re-read: the rows of enum tables when only their data changed (v2
 *   compat: `reload_metadata` picks those up), and nothing at all on GraphQL
 *   requests: an instance that gets no metadata calls keeps its catalog.
 *
 * Re-reading the whole source rather than only the objects an operation
 * names keeps one code path for every operation and for inconsistencies
 * elsewhere (a column dropped from a table no call names). Measured with
 * `node test/bench/introspection-freshness.ts 2000 30` (2,000 tables, stamp and
 * whole introspection interleaved on one pool, machine shared at load ~14 on
 * 2 cores, so absolute numbers are several times what an idle machine gives):
 * the stamp 83 / 98 ms median in two runs, the whole introspection 1,015 /
 * 1,401 ms; at load ~4.5, 31 ms against 425 ms. The stamp (7-8 % of a
 * re-read) is paid by every metadata request, the re-read only by the first
 * request after a DDL. End to end (`npm run bench:scale -- --scale-tables 2000
 * --scale-roles 10`, three runs each, interleaved, load ~4): pg_track_table of
 * a table made through run_sql 370 / 495 / 452 ms before, 427 / 431 / 466 ms
 * after; of a table made by a separate client, refused before, 1,102 / 1,107 /
 * 1,674 ms after (the re-read and one more catalog build).
 */

/*
 * Note [Stored introspection]
 * A start used to introspect every source although, most of the time,
 * nothing changed since the last instance read it: at 2,000 tables that is
 * the largest single wait of a restart (~425 ms on a quiet machine, seconds
 * under load, nearly all of it PostgreSQL's CPU). So every read outside a
 * `run_sql` transaction (whose DDL may yet be rolled back) is stored in the
 * metadata database (postgres/metadata-db/introspection-storage.ts, one row
 * per source configuration, replaced), a moment after the read
 * ({@link STORE_DELAY_MS}: off the start's own work, and a burst of re-reads
 * is written once; closing writes what waits). A source this process has not
 * read yet (a start, a new source, one another instance added) reads its
 * database's identity and DDL stamp in one statement (Introspector.stored)
 * and takes the stored text when the row has the same configuration,
 * identity (Note [Database identity] in postgres/ddl-stamp.ts: not the same
 * stamp on a copy or a restored database), format (the backend's version of
 * what it returns: INTROSPECTION_FORMAT in postgres/introspect.ts) and stamp.
 * It is exactly what a read would return then, because the stamp covers
 * everything introspection reports (Note [DDL stamp]). Anything else reads the source as before:
 * a miss, `reload_metadata` (also a way to correct a stored row), a changed
 * stamp, a backend without the optional `stored`. Enum tables' rows are data:
 * always read. Storing never fails or delays a start or a call: a failure is
 * a warning, as is a stored row that is corrupt (checksum) or not in the
 * shape this engine writes (stored-introspection.ts checks every field).
 * Measured at 2,000 tables × 10 roles on the shared 2-core machine (load
 * 8-19, 2026-11-28), before (d464273) and after alternated on one database,
 * CPU until /healthz: PostgreSQL 397-557 ms before (medians 458 and 455 in
 * two runs), 75-88 ms after on every start that used the stored row; the
 * engine's own CPU unchanged (medians 4.05 / 3.96 s and 4.06 / 4.14 s: it
 * parses 4.0 MB of JSON either way). So the saving is the catalog query:
 * the read itself took 1.2-2.8 s of wall time at that load, the stored path
 * 0.25-0.58 s (stamp and identity ~100 ms, the row with its checksum
 * ~70 ms, parse and checks ~80 ms); the wall time to /healthz swung 4-33 s
 * with the load and settles nothing. A third run at load 4-7: PostgreSQL
 * 434-453 → 75-78 ms, engine 3.93-4.04 → 3.80-4.02 s, /healthz medians
 * 4,278 → 4,142 ms (the engine's own ~4 s of CPU dominates). Re-measure: `node
 * test/bench/start-profile.ts 2000 10 3 /tmp/sp --no-prof --before-root
 * <worktree of an older commit>`.
 */

/*
 * Note [Introspection kept when equal]
 * A source read again (DDL elsewhere, `run_sql`, `reload_metadata`) gives
 * new objects for every table and function, and the catalog reuses its
 * per-table results only for the same objects (Note [Catalog memo] in
 * catalog/memo.ts): one CREATE TABLE would cost a build from scratch. So a
 * new introspection keeps the previous one's object for every table (and
 * every function's overload list) that is equal to it, compared as data
 * (catalog/intern.ts), and the whole previous map when the fingerprint says
 * nothing changed. The comparison is linear in the source's size, like the
 * read itself, and far cheaper than the rebuild it saves.
 */
function keepEqualObjects(before: SourceIntrospection, read: SourceIntrospection): SourceIntrospection {
  if (read.fingerprint === before.fingerprint && sameData(read.tables, before.tables) && sameData(read.functions, before.functions)) {
    return { ...read, tables: before.tables, ...(before.functions === undefined ? {} : { functions: before.functions }) };
  }
  const keep = <T>(old: ReadonlyMap<string, T> | undefined, next: ReadonlyMap<string, T>): ReadonlyMap<string, T> => {
    const out = new Map<string, T>();
    for (const [key, value] of next) {
      const was = old?.get(key);
      out.set(key, was !== undefined && sameData(was, value) ? was : value);
    }
    return out;
  };
  return {
    ...read,
    tables: keep(before.tables, read.tables),
    ...(read.functions === undefined ? {} : { functions: keep(before.functions, read.functions) }),
  };
}

/** What a stored introspection was keyed by and its fingerprint, as one text: equal tags, nothing new to store. */
function storedTag(k: introspectionStorage.StoredIntrospectionKey, fingerprint: string): string {
  return JSON.stringify([k.identity, k.format, k.ddlStamp, fingerprint]);
}

/** Which sources to introspect afresh: none, some by name, or all. */
export type { Refresh };

/** How long after a read its introspection is stored: a burst of re-reads (DDL, then metadata calls) is stored once, after the start's own work. */
const STORE_DELAY_MS = 1_000;

/** How long closing waits for introspections still being stored. */
const STORE_CLOSE_WAIT_MS = 5_000;

/** How long a pool no longer in use stays open, so requests on the old snapshot can finish. */
const RETIRE_DELAY_MS = 5_000;

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Opens, reuses and retires source connections and their introspection: the preparer of sources (Note [Preparers]). */
export class SourcePreparer implements ObjectPreparer<PreparedSource> {
  readonly #connections = new Map<string, SourceConnection>();
  readonly #retiring = new Map<ReturnType<typeof setTimeout>, SourceConnection>();
  readonly #logger: Logger;
  readonly #statementTimeoutMs: number;
  /** Where introspections are stored and read back (Note [Stored introspection]); absent: never. */
  readonly #metadataDb: MetadataDatabase | undefined;
  /** Introspections waiting to be stored, the latest per configuration key. */
  readonly #toStore = new Map<
    string,
    { readonly source: string; readonly key: introspectionStorage.StoredIntrospectionKey; readonly introspection: SourceIntrospection }
  >();
  /** The key (identity, format, stamp) stored or read back per configuration key: an equal one is not written again. */
  readonly #storedAs = new Map<string, string>();
  #storeTimer: ReturnType<typeof setTimeout> | null = null;
  #storing: Promise<void> = Promise.resolve();

  constructor(logger: Logger, statementTimeoutMs = 0, metadataDb?: MetadataDatabase) {
    this.#logger = logger;
    this.#statementTimeoutMs = statementTimeoutMs;
    this.#metadataDb = metadataDb;
  }

  /** The open connection for a configuration key, if any. */
  connection(configKey: string): SourceConnection | undefined {
    return this.#connections.get(configKey);
  }

  /**
   * Prepares every source of `doc` that has a backend, reusing `current` where
   * allowed. `via` maps configuration keys to an introspector inside a
   * transaction open on that database (a request's `run_sql`): those sources
   * are read through it, so they see its uncommitted changes and do not wait
   * on its locks.
   */
  async prepare(
    doc: MetadataDocument,
    current: PreparedSources,
    refresh: Refresh = new Set(),
    via: ReadonlyMap<string, Introspector> = new Map(),
  ): Promise<PreparedSources> {
    const out = new Map<string, PreparedSource>();
    await Promise.all(
      doc.sources.map(async (s) => {
        const backend = findBackend(s.kind);
        if (backend === undefined) return;
        const fresh = refresh === 'all' || refresh.has(s.name);
        const known = current.get(s.name);
        out.set(s.name, await this.#prepareSource(backend, s, fresh ? undefined : known, via, known));
      }),
    );
    return out;
  }

  /**
   * The sources of `doc` whose database catalog changed since `current` was
   * introspected: see Note [Introspection freshness]. A source that cannot
   * answer is left as it is (its calls fail or succeed as they did before).
   */
  async stale(doc: MetadataDocument, current: PreparedSources): Promise<ReadonlySet<string>> {
    const out = new Set<string>();
    await Promise.all(
      doc.sources.map(async (s) => {
        const backend = findBackend(s.kind);
        const p = current.get(s.name);
        if (backend === undefined || p === undefined || !p.ok) return;
        const open = this.#connections.get(p.configKey);
        if (open === undefined) return;
        const introspector = backend.introspector(open);
        // A database without a DDL stamp cannot tell: it is introspected again on every request.
        if (introspector.ddlStamp === undefined) {
          out.add(s.name);
          return;
        }
        try {
          if ((await introspector.ddlStamp()) !== p.introspection.ddlStamp) out.add(s.name);
        } catch (e) {
          this.#logger.log('pg-client', 'warn', { message: 'could not check a source for changes', source: s.name, error: e });
        }
      }),
    );
    return out;
  }

  /**
   * Prepares one source from an introspection taken elsewhere (inside a
   * `run_sql` transaction), reading enum rows through the same `tx`.
   */
  async prepareFromIntrospection(s: SourceMetadata, previous: ReadySource, read: SourceIntrospection, tx: Introspector): Promise<ReadySource> {
    const introspection = keepEqualObjects(previous.introspection, read);
    const enumRows = await this.#readEnumRows(s, introspection, new Map(), tx);
    return { ...previous, introspection, enumRows };
  }

  async #prepareSource(
    backend: Backend,
    s: SourceMetadata,
    previous: PreparedSource | undefined,
    via: ReadonlyMap<string, Introspector>,
    /** The source as prepared before, even when it is read afresh: its equal objects are kept (Note [Introspection kept when equal]). */
    known: PreparedSource | undefined,
  ): Promise<PreparedSource> {
    const resolved = backend.configuration.resolve(s.configuration, { env: resolveEnv, statementTimeoutMs: this.#statementTimeoutMs });
    const configKey = resolved.key;
    if ('reason' in resolved) return { ok: false, name: s.name, configKey, reason: resolved.reason };
    if (previous !== undefined && previous.configKey === configKey) {
      if (!previous.ok) return previous;
      const open = this.#connections.get(configKey);
      if (open === undefined) return previous;
      const enumRows = await this.#readEnumRows(s, previous.introspection, previous.enumRows, via.get(configKey) ?? backend.introspector(open));
      return enumRows === previous.enumRows ? previous : { ...previous, enumRows };
    }
    let conn = this.#connections.get(configKey);
    if (conn === undefined) {
      conn = backend.connect(resolved);
      this.#connections.set(configKey, conn);
    }
    try {
      const inTransaction = via.get(configKey);
      const introspector = inTransaction ?? backend.introspector(conn);
      // Note [Stored introspection]: only a source this process has not read yet (a start) may use the stored one.
      const stored = inTransaction === undefined && known === undefined ? await this.#readStored(s.name, configKey, introspector) : undefined;
      const read = stored ?? (await introspector.introspect());
      // One read inside a run_sql transaction may yet be rolled back: never stored.
      if (stored === undefined && inTransaction === undefined) this.#storeLater(s.name, configKey, introspector, read);
      const introspection = known?.ok === true && known.configKey === configKey ? keepEqualObjects(known.introspection, read) : read;
      const enumRows = await this.#readEnumRows(s, introspection, new Map(), introspector);
      return { ok: true, name: s.name, configKey, connection: conn, introspection, enumRows };
    } catch (e) {
      this.#logger.log('pg-client', 'warn', { message: 'source unavailable', source: s.name, error: e });
      return { ok: false, name: s.name, configKey, reason: `could not connect to source "${s.name}": ${errorText(e)}` };
    }
  }

  /**
   * The stored introspection of the source when it was read from this very
   * database (identity), by this engine's format, and its DDL stamp is still
   * the database's; else undefined. A stored row that cannot be used is
   * logged and ignored; failing to reach the source is thrown, as introspecting would.
   */
  async #readStored(source: string, configKey: string, introspector: Introspector): Promise<SourceIntrospection | undefined> {
    const db = this.#metadataDb;
    const support = introspector.stored;
    if (db === undefined || support === undefined) return undefined;
    // The row is read while the source is asked for its stamp (one round trip less); compared after.
    const loading = introspectionStorage.loadStoredIntrospection(db, configKey).then(
      (row) => ({ row }),
      (error: unknown) => ({ error }),
    );
    const { identity, ddlStamp } = await support.current();
    const loaded = await loading;
    if (identity === null) return undefined;
    try {
      if ('error' in loaded) throw loaded.error;
      const row = loaded.row;
      if (row === null || row.identity !== identity || row.format !== support.format || row.ddlStamp !== ddlStamp) return undefined;
      const introspection = parseIntrospectionText(row.text(), ddlStamp, identity);
      this.#storedAs.set(configKey, storedTag(row, introspection.fingerprint));
      this.#logger.log('metadata', 'info', { message: 'introspection read from the metadata database', source });
      return introspection;
    } catch (e) {
      this.#logger.log('metadata', 'warn', { message: 'stored introspection ignored', source, error: e });
      return undefined;
    }
  }

  /** Stores `read` a little later, unless it is what is stored already (Note [Stored introspection]). */
  #storeLater(source: string, configKey: string, introspector: Introspector, read: SourceIntrospection): void {
    const format = introspector.stored?.format;
    if (this.#metadataDb === undefined || format === undefined || read.identity === undefined) return;
    const key = { configKey, identity: read.identity, format, ddlStamp: read.ddlStamp };
    if (this.#storedAs.get(configKey) === storedTag(key, read.fingerprint)) return;
    this.#toStore.set(configKey, { source, key, introspection: read });
    if (this.#storeTimer !== null) return;
    this.#storeTimer = setTimeout(() => {
      this.#storeTimer = null;
      void this.#storePending();
    }, STORE_DELAY_MS);
    this.#storeTimer.unref();
  }

  /** Writes what waits to be stored, one store after the other; a failure is logged, never thrown. */
  #storePending(): Promise<void> {
    this.#storing = this.#storing.then(async () => {
      const db = this.#metadataDb;
      const pending = [...this.#toStore.values()];
      this.#toStore.clear();
      if (db === undefined) return;
      for (const p of pending) {
        try {
          await introspectionStorage.saveStoredIntrospection(db, p.key, introspectionText(p.introspection));
          this.#storedAs.set(p.key.configKey, storedTag(p.key, p.introspection.fingerprint));
        } catch (e) {
          this.#logger.log('metadata', 'warn', { message: 'could not store the introspection', source: p.source, error: e });
        }
      }
    });
    return this.#storing;
  }

  /** Reads rows of `is_enum` tables not already in `known`; returns `known` itself when nothing was missing. */
  async #readEnumRows(
    s: SourceMetadata,
    introspection: SourceIntrospection,
    known: ReadonlyMap<string, EnumTableRows | string>,
    introspector: Introspector,
  ): Promise<ReadonlyMap<string, EnumTableRows | string>> {
    const wanted: Array<{ key: string; table: { schema: string; name: string }; valueColumn: string; commentColumn: string | null }> = [];
    for (const t of s.tables) {
      if (t.is_enum !== true) continue;
      const key = tableKey(t.table);
      if (known.has(key)) continue;
      const intro = introspection.tables.get(key);
      const cols = intro === undefined ? null : enumColumns(intro);
      if (cols !== null) wanted.push({ key, table: t.table, ...cols });
    }
    if (wanted.length === 0) return known;
    const rows = await introspector.enumRows(wanted);
    const out = new Map(known);
    wanted.forEach((w, i) => {
      const r = rows[i];
      out.set(w.key, r instanceof Error ? r.message : (r ?? []));
    });
    return out;
  }

  /** Closes (after a delay) the pools that `keep` no longer uses. */
  retain(keep: PreparedSources): void {
    const used = new Set([...keep.values()].map((p) => p.configKey));
    for (const [key, conn] of this.#connections) {
      if (used.has(key)) continue;
      this.#connections.delete(key);
      const timer = setTimeout(() => {
        this.#retiring.delete(timer);
        void conn.close();
      }, RETIRE_DELAY_MS);
      timer.unref();
      this.#retiring.set(timer, conn);
    }
  }

  /** Stores what waits to be stored (for at most a few seconds), then closes every pool. */
  async closeAll(): Promise<void> {
    if (this.#storeTimer !== null) clearTimeout(this.#storeTimer);
    this.#storeTimer = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.#storePending(), new Promise<void>((resolve) => (timer = setTimeout(resolve, STORE_CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    for (const t of this.#retiring.keys()) clearTimeout(t);
    const all = [...this.#connections.values(), ...this.#retiring.values()];
    this.#retiring.clear();
    this.#connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}
