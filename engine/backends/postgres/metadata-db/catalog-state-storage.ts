/**
 * Storage of the catalog state in the metadata database: one row of
 * `engine_metadata.catalog_state` with v2's `cli_state` and `console_state`
 * (free-form JSON its command-line client and console keep on the server:
 * the applied migration versions among them). Only SQL lives here;
 * metadata/operations/manage/catalog-state.ts decides when to call it.
 */
import pg from 'pg';
import { ensureEngineTables } from './metadata-storage.ts';
import { metadataClientConfig } from '../ssl.ts';

/** Arbitrary but fixed key of the advisory lock taken while creating the table. */
const SCHEMA_LOCK_KEY = 727_033;

/** The stored row, as v2's `get_catalog_state` answers it. */
export interface CatalogState {
  readonly id: string;
  readonly cli_state: unknown;
  readonly console_state: unknown;
}

/** The two states there are (v2's `set_catalog_state` type). */
export type CatalogStateType = 'cli' | 'console';

async function withTable<T>(url: string, fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  // A pool of one per call: only project tooling calls these, a few times per run.
  const pool = new pg.Pool({ ...metadataClientConfig(url), max: 1 });
  pool.on('error', () => {});
  try {
    await ensureEngineTables(pool, SCHEMA_LOCK_KEY, [
      `CREATE TABLE IF NOT EXISTS engine_metadata.catalog_state (
        id integer PRIMARY KEY CHECK (id = 1),
        state_id uuid NOT NULL DEFAULT gen_random_uuid(),
        cli_state jsonb NOT NULL DEFAULT '{}'::jsonb,
        console_state jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      'INSERT INTO engine_metadata.catalog_state (id) VALUES (1) ON CONFLICT (id) DO NOTHING',
    ]);
    return await fn(pool);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** The catalog state (empty objects until something was set). */
export async function readCatalogState(url: string): Promise<CatalogState> {
  return await withTable(url, async (c) => {
    const r = await c.query<{ id: string; cli_state: unknown; console_state: unknown }>(
      'SELECT state_id::text AS id, cli_state, console_state FROM engine_metadata.catalog_state WHERE id = 1',
    );
    const row = r.rows[0];
    return { id: row?.id ?? '', cli_state: row?.cli_state ?? {}, console_state: row?.console_state ?? {} };
  });
}

/** Replaces one of the two states. */
export async function writeCatalogState(url: string, type: CatalogStateType, state: unknown): Promise<void> {
  await withTable(url, async (c) => {
    const column = type === 'cli' ? 'cli_state' : 'console_state';
    await c.query(`UPDATE engine_metadata.catalog_state SET ${column} = $1::jsonb, updated_at = now() WHERE id = 1`, [JSON.stringify(state)]);
  });
}
