/**
 * Which live-query cohorts read which tables, and one change listener per
 * source connection (Note [Refetch on change] in live-queries.ts).
 */
import type { ChangedRows, ChangeFeed, SourceConnection, TableName, WatchedTable } from '../backends/backend.ts';
import { backendFor } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { tableKey } from './row-keys.ts';

interface Watcher {
  readonly changed: (table: TableName, rows: ChangedRows | null) => void;
  readonly lost: () => void;
}

/** The listener of one source and who watches its tables. */
interface SourceFeed {
  readonly feed: Promise<ChangeFeed>;
  /** `[schema, name]` JSON → the watchers of that table. */
  readonly tables: Map<string, Map<object, Watcher>>;
  /** Tables whose triggers are installed (by this process) → the columns their reports carry. */
  readonly installed: Map<string, ReadonlySet<string>>;
}

/** Change listeners per source connection. */
export class ChangeFeeds {
  readonly #sources = new Map<SourceConnection, SourceFeed>();
  /** Notifications received (tests, bench). */
  notifications = 0;

  /**
   * Calls `changed` after each committed write to one of `tables` (with the changed rows' values of the
   * table's `columns` where the backend can tell); installs what that needs. Throws when it cannot.
   */
  async watch(
    conn: SourceConnection,
    tables: readonly WatchedTable[],
    owner: object,
    changed: (table: TableName, rows: ChangedRows | null) => void,
    lost: () => void,
  ): Promise<void> {
    const support = backendFor(conn.kind).liveQueries;
    const listen = support?.listen;
    const watchTables = support?.watchTables;
    if (listen === undefined || watchTables === undefined) throw new EngineError(ErrorCode.NotSupported, `no change notification on ${conn.kind} sources`);
    let source = this.#sources.get(conn);
    if (source === undefined) {
      const tablesMap = new Map<string, Map<object, Watcher>>();
      const feed = listen.call(
        support,
        conn,
        (t, rows) => {
          this.notifications++;
          for (const w of tablesMap.get(tableKey(t))?.values() ?? []) w.changed(t, rows);
        },
        () => {
          for (const ws of tablesMap.values()) for (const w of ws.values()) w.lost();
        },
      );
      source = { feed, tables: tablesMap, installed: new Map() };
      this.#sources.set(conn, source);
      feed.catch(() => {
        if (this.#sources.get(conn) === source) this.#sources.delete(conn);
      });
    }
    await source.feed;
    // Columns only grow: a table's reports carry every column some cohort of this process asked for.
    const missing: WatchedTable[] = [];
    for (const t of tables) {
      const have = source.installed.get(tableKey(t.table));
      if (have === undefined || t.columns.some((c) => !have.has(c)))
        missing.push({ table: t.table, columns: [...new Set([...(have ?? []), ...t.columns])].sort() });
    }
    if (missing.length > 0) {
      await watchTables.call(support, conn, missing);
      for (const t of missing) source.installed.set(tableKey(t.table), new Set(t.columns));
    }
    // Closed meanwhile (its last watcher left): watch on a new listener.
    if (this.#sources.get(conn) !== source) return await this.watch(conn, tables, owner, changed, lost);
    for (const { table } of tables) {
      const k = tableKey(table);
      let ws = source.tables.get(k);
      if (ws === undefined) {
        ws = new Map();
        source.tables.set(k, ws);
      }
      ws.set(owner, { changed, lost });
    }
  }

  /**
   * Stops reporting `tables` to `owner`. A source nobody watches any more
   * closes its listener (its connection may be one the catalog replaced).
   */
  unwatch(conn: SourceConnection, tables: readonly TableName[], owner: object): void {
    const source = this.#sources.get(conn);
    if (source === undefined) return;
    for (const t of tables) {
      const k = tableKey(t);
      const ws = source.tables.get(k);
      ws?.delete(owner);
      if (ws !== undefined && ws.size === 0) source.tables.delete(k);
    }
    if (source.tables.size === 0) {
      this.#sources.delete(conn);
      void source.feed.then((f) => f.close()).catch(() => {});
    }
  }

  /** Closes every listener. */
  async close(): Promise<void> {
    const feeds = [...this.#sources.values()].map((s) => s.feed);
    this.#sources.clear();
    await Promise.all(feeds.map(async (f) => await f.then((x) => x.close()).catch(() => {})));
  }
}
