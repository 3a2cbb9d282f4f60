/**
 * Storage of each source's last introspection in the metadata database: one
 * row of `engine_metadata.source_introspection` per source configuration,
 * replaced on every store, so that a start can skip introspecting a source
 * whose catalog did not change (Note [Stored introspection] in
 * ../../source-preparer.ts). Only SQL and the row's checksum live here; the
 * preparer decides when to call it.
 */
import { createHash } from 'node:crypto';
import type { MetadataDatabase } from './database.ts';
import { ensureEngineTables } from './metadata-storage.ts';

/** Arbitrary but fixed key of the advisory lock taken while creating the table. */
const SCHEMA_LOCK_KEY = 727_041;

/** What a stored row must match, all of it, to be read back. */
export interface StoredIntrospectionKey {
  /** The source's configuration key (hashed here: it holds the URL and its password). */
  readonly configKey: string;
  /** The database's identity (Note [Database identity] in ../ddl-stamp.ts, or another backend's). */
  readonly identity: string;
  /** The backend's introspection format (StoredIntrospectionSupport.format). */
  readonly format: string;
  /** The DDL stamp the introspection was read with. */
  readonly ddlStamp: string;
}

/** The row's key: a digest of the configuration, so no password is written. */
export function sourceRowKey(configKey: string): string {
  return createHash('sha256').update(configKey).digest('hex');
}

/** The checksum kept with the text; a row whose text does not match it is corrupt. */
export function introspectionChecksum(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The tables this process already made sure of (one CREATE per metadata database and process). */
const ensured = new WeakMap<MetadataDatabase, Promise<void>>();

async function ensureTable(db: MetadataDatabase): Promise<void> {
  let done = ensured.get(db);
  if (done === undefined) {
    done = ensureEngineTables(db.pool, SCHEMA_LOCK_KEY, [
      // text, not jsonb: stored and read whole, parsed by the engine (nothing to gain from PostgreSQL parsing it).
      `CREATE TABLE IF NOT EXISTS engine_metadata.source_introspection (
        source_key text PRIMARY KEY,
        database_identity text NOT NULL,
        format text NOT NULL,
        ddl_stamp text NOT NULL,
        checksum text NOT NULL,
        introspection text NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now()
      )`,
    ]);
    ensured.set(db, done);
    done.catch(() => ensured.delete(db));
  }
  await done;
}

/** PostgreSQL's undefined_table: nothing was ever stored in this metadata database. */
const UNDEFINED_TABLE = '42P01';

/** A stored row: what it was keyed by, and its text once checked against its checksum. */
export interface StoredIntrospectionRow extends StoredIntrospectionKey {
  /** The text; throws when it does not match the row's checksum (a corrupt row). */
  text(): string;
}

/**
 * The row stored for the configuration `configKey`, whatever it was read
 * from (the caller compares the rest of the key: this read can then run
 * while the source is asked for its stamp), or null when there is none.
 */
export async function loadStoredIntrospection(db: MetadataDatabase, configKey: string): Promise<StoredIntrospectionRow | null> {
  type Raw = { database_identity: string; format: string; ddl_stamp: string; checksum: string; introspection: string };
  let rows: Raw[];
  try {
    const res = await db.pool.query<Raw>(
      `SELECT database_identity, format, ddl_stamp, checksum, introspection FROM engine_metadata.source_introspection WHERE source_key = $1`,
      [sourceRowKey(configKey)],
    );
    rows = res.rows;
  } catch (e) {
    if ((e as { code?: unknown }).code === UNDEFINED_TABLE) return null;
    throw e;
  }
  const row = rows[0];
  if (row === undefined) return null;
  return {
    configKey,
    identity: row.database_identity,
    format: row.format,
    ddlStamp: row.ddl_stamp,
    text() {
      if (introspectionChecksum(row.introspection) !== row.checksum) throw new Error('the stored introspection does not match its checksum');
      return row.introspection;
    },
  };
}

/** Stores `text` for `key`, replacing what was stored for the same configuration (one row per source). */
export async function saveStoredIntrospection(db: MetadataDatabase, key: StoredIntrospectionKey, text: string): Promise<void> {
  await ensureTable(db);
  await db.pool.query(
    `INSERT INTO engine_metadata.source_introspection (source_key, database_identity, format, ddl_stamp, checksum, introspection)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (source_key) DO UPDATE SET database_identity = excluded.database_identity, format = excluded.format,
       ddl_stamp = excluded.ddl_stamp, checksum = excluded.checksum, introspection = excluded.introspection, stored_at = now()`,
    [sourceRowKey(key.configKey), key.identity, key.format, key.ddlStamp, introspectionChecksum(text), text],
  );
}
