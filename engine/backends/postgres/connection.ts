/**
 * A PostgreSQL source connection: a pg.Pool behind the SourceConnection
 * interface. Every value comes back as text (no client-side type parsing),
 * because results are JSON built by the database and passed on as text.
 */
import pg from 'pg';
import type { BoundStatement, SourceConnection } from '../backend.ts';

/** Pool settings of a source (v2 `pool_settings`, already resolved). */
export interface PostgresPoolSettings {
  readonly maxConnections?: number;
  readonly idleTimeoutSeconds?: number;
  readonly connectionLifetimeSeconds?: number;
  readonly connectTimeoutSeconds?: number;
}

/** Something that runs SQL: a pool or one checked-out client. */
export type PgQueryable = pg.Pool | pg.ClientBase;

/** Returns every value as its text form (null stays null). */
const textTypes: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

/** Runs `text` with `values` and returns the first column of the first row as text. */
export async function queryFirstText(q: PgQueryable, text: string, values: readonly unknown[] = []): Promise<string | null> {
  const config: pg.QueryArrayConfig = { text, values: [...values], rowMode: 'array', types: textTypes };
  const res = await (q as pg.ClientBase).query(config);
  const row = res.rows[0] as unknown[] | undefined;
  if (row === undefined) return null;
  const cell = row[0];
  return cell === null || cell === undefined ? null : String(cell);
}

/** A pooled connection to one PostgreSQL source. */
export class PostgresConnection implements SourceConnection {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;
  #closed = false;

  constructor(databaseUrl: string, settings: PostgresPoolSettings = {}) {
    this.#pool = new pg.Pool({
      connectionString: databaseUrl,
      max: settings.maxConnections ?? 50,
      idleTimeoutMillis: (settings.idleTimeoutSeconds ?? 180) * 1000,
      maxLifetimeSeconds: settings.connectionLifetimeSeconds ?? 600,
      connectionTimeoutMillis: (settings.connectTimeoutSeconds ?? 10) * 1000,
    });
    // An idle client losing its server must not crash the process; the pool drops it.
    this.#pool.on('error', () => {});
  }

  /** Runs a statement returning one row with one column, and returns that column as text. */
  async queryJsonText(stmt: BoundStatement): Promise<string | null> {
    return await queryFirstText(this.#pool, stmt.text, stmt.values);
  }

  /** Runs statements in order in one transaction; any failure rolls back all. */
  async transactionJsonText(stmts: readonly BoundStatement[]): Promise<(string | null)[]> {
    return await this.withTransaction(async (client) => {
      const out: (string | null)[] = [];
      for (const s of stmts) out.push(await queryFirstText(client, s.text, s.values));
      return out;
    });
  }

  /**
   * Runs `fn` inside BEGIN..COMMIT on one client (ROLLBACK when it throws).
   * `begin` lets callers open the transaction differently (`BEGIN READ ONLY`).
   */
  async withTransaction<T>(fn: (client: PgQueryable) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.#pool.connect();
    let broken = false;
    try {
      await client.query(begin);
      try {
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw e;
      }
    } finally {
      client.release(broken);
    }
  }

  /** The pool itself, for one-off queries (introspection). */
  get queryable(): PgQueryable {
    return this.#pool;
  }

  /** Closes the pool after in-flight queries finish. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
