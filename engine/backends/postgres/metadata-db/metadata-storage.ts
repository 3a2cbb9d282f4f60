/**
 * Storage of the metadata document in PostgreSQL: one row in
 * `engine_metadata.metadata` with the document and its resource_version, and
 * the NOTIFY channel other engine processes LISTEN on. Only SQL lives here;
 * metadata/store.ts decides when to call it.
 */
import type pg from 'pg';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { ChannelSubscription, MetadataTransaction } from '../../metadata-database.ts';
import { clientOf, type MetadataDatabase } from './database.ts';

/** The NOTIFY channel of metadata changes. */
export const METADATA_CHANNEL = 'engine_metadata_changed';

/** Arbitrary but fixed key of the advisory lock taken while creating the schema. */
const SCHEMA_LOCK_KEY = 727_001;

/** The stored row. */
export interface StoredMetadata {
  readonly resourceVersion: number;
  readonly metadata: unknown;
  /** The document's text as stored (json keeps what was sent), which its stamp covers. */
  readonly text: string;
  /** The stamp written with it (Note [Document stamp] in metadata/store.ts), or null. */
  readonly stamp: string | null;
}

/** A document to store: its JSON text and the stamp that goes with it. */
export interface DocumentText {
  readonly text: string;
  readonly stamp: string | null;
}

/** One round trip (readiness of a source). */
export async function pingDatabase(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT 1');
}

/*
 * Note [Document stored as json]
 * Every metadata call writes the whole document, and at 2,000 tables × 10
 * roles it is 3 MiB: as jsonb, PostgreSQL parsed it into its binary form on
 * every write (and printed it back on every read) for nothing, since the
 * engine only ever stores and loads it whole. As json (what v2's
 * hdb_catalog.hdb_metadata uses) it is checked and kept as sent. Measured
 * with `node test/bench/document-store-cost.ts 2000 4` (one UPDATE of the
 * 3 MiB document through node-postgres, load ~16 on the 2-core machine,
 * 2026-11-28): jsonb 271 / 190 / 189 / 213 ms, json 64 / 61 / 65 / 50 ms,
 * text 45 / 43 / 43 / 30 ms (text would skip the check a hand-edited row
 * needs). An existing jsonb column is changed in place the
 * first time an engine of this version opens the database.
 */

/**
 * Creates the schema and table if missing (and stores the document as json:
 * Note [Document stored as json]). An advisory lock makes two engines
 * starting at once on one database take turns, so neither sees a half-made schema.
 */
export async function ensureMetadataSchema(db: MetadataDatabase): Promise<void> {
  await ensureEngineTables(db.pool, SCHEMA_LOCK_KEY, [
    `CREATE TABLE IF NOT EXISTS engine_metadata.metadata (
      id integer PRIMARY KEY CHECK (id = 1),
      resource_version integer NOT NULL,
      metadata json NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`,
    `DO $$ BEGIN
      IF (SELECT atttypid FROM pg_catalog.pg_attribute
          WHERE attrelid = 'engine_metadata.metadata'::regclass AND attname = 'metadata') = 'jsonb'::regtype THEN
        ALTER TABLE engine_metadata.metadata ALTER COLUMN metadata TYPE json USING metadata::json;
      END IF;
    END $$`,
    // Checked first, so a start on a table that has the column takes no ACCESS EXCLUSIVE lock.
    `DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
          WHERE attrelid = 'engine_metadata.metadata'::regclass AND attname = 'document_stamp' AND NOT attisdropped) THEN
        ALTER TABLE engine_metadata.metadata ADD COLUMN document_stamp text;
      END IF;
    END $$`,
  ]);
}

/**
 * Runs `statements` (idempotent DDL of tables in schema `engine_metadata`)
 * in one transaction under the advisory lock `lockKey`, creating the schema
 * first: engines starting at once take turns and never see half-made tables.
 * Shared by the metadata, scheduled events and async action storage.
 */
export async function ensureEngineTables(pool: pg.Pool, lockKey: number, statements: readonly string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
    await client.query('CREATE SCHEMA IF NOT EXISTS engine_metadata');
    for (const statement of statements) await client.query(statement);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** Reads the stored document, or null when none was stored yet. */
export async function loadMetadata(db: MetadataDatabase): Promise<StoredMetadata | null> {
  // As text, parsed here: node-postgres would parse json too, and the stamp needs the text.
  const res = await db.pool.query<{ resource_version: number; text: string; document_stamp: string | null }>(
    'SELECT resource_version, metadata::text AS text, document_stamp FROM engine_metadata.metadata WHERE id = 1',
  );
  const row = res.rows[0];
  if (row === undefined) return null;
  return { resourceVersion: row.resource_version, metadata: JSON.parse(row.text) as unknown, text: row.text, stamp: row.document_stamp };
}

/** Reads only the stored resource_version (polling). */
export async function loadResourceVersion(db: MetadataDatabase): Promise<number | null> {
  const res = await db.pool.query<{ resource_version: number }>('SELECT resource_version FROM engine_metadata.metadata WHERE id = 1');
  return res.rows[0]?.resource_version ?? null;
}

/** Stores `document` as version `resourceVersion` unless a document is already stored; returns what is stored. */
export async function initializeMetadata(db: MetadataDatabase, document: DocumentText, resourceVersion: number): Promise<StoredMetadata> {
  await db.pool.query(
    'INSERT INTO engine_metadata.metadata (id, resource_version, metadata, document_stamp) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING',
    [resourceVersion, document.text, document.stamp],
  );
  const stored = await loadMetadata(db);
  if (stored === null) throw new EngineError(ErrorCode.Unexpected, 'metadata row vanished after insert', { status: 500 });
  return stored;
}

/**
 * Stores `document` as `expected + 1` if the stored version is still
 * `expected`, and sends `notice` on the channel in the same transaction (so it
 * is delivered only if the write commits). Returns the new version, or null
 * when another writer got there first.
 */
export async function saveMetadata(
  db: MetadataDatabase,
  document: DocumentText,
  expected: number,
  notice: string,
  alongside: ((tx: MetadataTransaction) => Promise<void>) | null = null,
): Promise<number | null> {
  return await db.transaction(async (tx) => {
    const v = await saveMetadataIn(tx, document, expected, notice, alongside);
    return { commit: v !== null, value: v };
  });
}

/**
 * {@link saveMetadata} inside a transaction the caller opened (and commits or
 * rolls back): a `run_sql` transaction on the metadata database, so that its
 * SQL and the metadata commit together. `alongside` (effects' work in the
 * same transaction, Note [Effects]) runs first.
 */
export async function saveMetadataIn(
  tx: MetadataTransaction,
  document: DocumentText,
  expected: number,
  notice: string,
  alongside: ((tx: MetadataTransaction) => Promise<void>) | null = null,
): Promise<number | null> {
  const client = clientOf(tx);
  if (alongside !== null) await alongside(tx);
  const res = await client.query<{ resource_version: number }>(
    `UPDATE engine_metadata.metadata SET metadata = $1, document_stamp = $3, resource_version = resource_version + 1, updated_at = now()
     WHERE id = 1 AND resource_version = $2 RETURNING resource_version`,
    [document.text, expected, document.stamp],
  );
  const row = res.rows[0];
  if (row === undefined) return null;
  await client.query('SELECT pg_notify($1, $2)', [METADATA_CHANNEL, notice]);
  return row.resource_version;
}

/**
 * Subscribes to metadata change notices on the metadata database's LISTEN
 * connection: `onNotice` gets each payload, `missed` is called when notices
 * may have been missed (the connection lost, and back).
 */
export async function listenMetadata(db: MetadataDatabase, onNotice: (payload: string) => void, missed: () => void): Promise<ChannelSubscription> {
  return await db.listen(METADATA_CHANNEL, { notify: onNotice, missed });
}
