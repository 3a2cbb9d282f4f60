/**
 * The stored document's stamp (Note [Document stamp] in
 * engine/metadata/store.ts): a start trusts, without validating, only a
 * document whose exact text this engine's stamp covers; a row edited by
 * hand, or stamped under another key, is validated as before, so a bad
 * stored document gives the same error with or without a stamp.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataDatabase } from '../../../engine/backends/registry.ts';
import { silentLogger } from '../../../engine/logger.ts';
import { DOCUMENT_STAMP_KEY, engineDocumentSchemas } from '../../../engine/metadata/document-schemas.ts';
import { MetadataStore } from '../../../engine/metadata/store.ts';
import { assertValid } from '../../../engine/model/schemas/validate.ts';
import { isEngineError } from '../../../engine/errors/engine-error.ts';
import { startTestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;

interface Row {
  readonly text: string;
  readonly stamp: string | null;
}

async function storedRow(): Promise<Row> {
  const r = await db.sql('SELECT metadata::text AS text, document_stamp AS stamp FROM engine_metadata.metadata WHERE id = 1');
  return r.rows[0] as Row;
}

/** Whether a store opened with `key` takes the stored document as written by itself. */
async function writtenFor(key: string | null): Promise<boolean> {
  const mdb = await MetadataDatabase.open(db.url);
  try {
    const store = await MetadataStore.open(mdb, randomUUID(), silentLogger, key);
    return (await store.loadOrInitialize({})).written;
  } finally {
    await mdb.close();
  }
}

/** The error a start on the stored document fails with (its code, message and path), or null when it starts. */
async function startError(): Promise<{ code: string; message: string; path: unknown } | null> {
  try {
    const e = await startTestEngine({ databaseUrl: db.url });
    await e.close();
    return null;
  } catch (err) {
    if (!isEngineError(err)) throw err;
    return { code: err.code, message: err.message, path: (err as { path?: unknown }).path };
  }
}

beforeAll(async () => {
  db = await createTestDatabase('doc_stamp');
  await db.sql(`
    CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author (id));
    INSERT INTO author (name) VALUES ('Ann');`);
  const e = await startTestEngine({ databaseUrl: db.url });
  try {
    const calls: unknown[] = [
      { type: 'pg_track_table', args: { source: 'default', table: 'author', configuration: { custom_name: 'writer', comment: 'people' } } },
      { type: 'pg_track_table', args: { source: 'default', table: 'article' } },
      {
        type: 'pg_create_object_relationship',
        args: { source: 'default', table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
      },
      {
        type: 'pg_create_select_permission',
        args: {
          source: 'default',
          table: 'author',
          role: 'user',
          permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } }, limit: 5 },
        },
      },
      {
        type: 'pg_create_insert_permission',
        args: { source: 'default', table: 'article', role: 'user', permission: { columns: ['title'], check: {}, set: { author_id: 'x-engine-user-id' } } },
      },
    ];
    for (const body of calls) {
      const r = await e.metadata(body);
      expect(r.status, r.text).toBe(200);
    }
  } finally {
    await e.close();
  }
});

afterAll(async () => {
  await db?.drop();
});

describe('the stored document stamp', () => {
  it("is the engine's stamp of the exact text it wrote, and that text validates unchanged", async () => {
    const row = await storedRow();
    expect(row.stamp).toBe(createHash('sha256').update(DOCUMENT_STAMP_KEY).update('\n').update(row.text).digest('hex'));
    // What a trusting start skips would have accepted the document as it is (no key taken out).
    const parsed = JSON.parse(row.text) as unknown;
    expect(assertValid(engineDocumentSchemas.stored, structuredClone(parsed), '$')).toEqual(parsed);
    expect(await writtenFor(DOCUMENT_STAMP_KEY)).toBe(true);
  });

  it('is not trusted under another key, or without one', async () => {
    expect(await writtenFor('another engine version')).toBe(false);
    expect(await writtenFor(null)).toBe(false);
  });

  it('is not trusted once the row was edited by hand, and a restart serves the edit', async () => {
    const before = await storedRow();
    // A hand edit that keeps the document valid but renames the root field: the stamp column is left as it was.
    await db.sql(`UPDATE engine_metadata.metadata SET metadata = replace(metadata::text, '"custom_name":"writer"', '"custom_name":"person"')::json`);
    const after = await storedRow();
    expect(after.stamp).toBe(before.stamp);
    expect(after.text).not.toBe(before.text);
    expect(await writtenFor(DOCUMENT_STAMP_KEY)).toBe(false);
    const e = await startTestEngine({ databaseUrl: db.url });
    try {
      const q = await e.graphql('{ person { name } }');
      expect(q.body).toEqual({ data: { person: [{ name: 'Ann' }] } });
      // The engine's next write stamps its own text again.
      const r = await e.metadata({ type: 'pg_untrack_table', args: { source: 'default', table: 'article' } });
      expect(r.status, r.text).toBe(200);
    } finally {
      await e.close();
    }
    expect(await writtenFor(DOCUMENT_STAMP_KEY)).toBe(true);
  });

  it('a hand-edited invalid document fails the start with the same error, stamp or not', async () => {
    await db.sql(`UPDATE engine_metadata.metadata SET metadata = replace(metadata::text, '"limit":5', '"limit":"five"')::json`);
    expect((await storedRow()).stamp).not.toBeNull();
    const stamped = await startError();
    expect(stamped).toMatchObject({ code: 'parse-failed' });
    expect(stamped?.message).toContain('expected');
    await db.sql('UPDATE engine_metadata.metadata SET document_stamp = NULL');
    expect(await startError()).toEqual(stamped);
  });
});
