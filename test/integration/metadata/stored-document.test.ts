/**
 * The stored document's column (Note [Document stored as json] in
 * engine/backends/postgres/metadata-db/metadata-storage.ts): json, as v2's;
 * a metadata database made by an older engine (jsonb) is changed in place by
 * the next start, and what it held is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;

async function columnType(): Promise<string> {
  const r = await db.sql(
    "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'engine_metadata.metadata'::regclass AND attname = 'metadata'",
  );
  return (r.rows[0] as { t: string }).t;
}

beforeAll(async () => {
  db = await createTestDatabase('stored_doc');
  await db.sql("CREATE TABLE note (id int PRIMARY KEY, body text); INSERT INTO note VALUES (1, 'kept')");
});

afterAll(async () => {
  await db?.drop();
});

describe('the stored document', () => {
  it('is json, and a jsonb column of an older engine is changed in place with its document kept', async () => {
    const first = await startTestEngine({ databaseUrl: db.url });
    try {
      const r = await first.metadata({ type: 'pg_track_table', args: { source: 'default', table: 'note' } });
      expect(r.status, r.text).toBe(200);
    } finally {
      await first.close();
    }
    expect(await columnType()).toBe('json');
    // As an engine before this change left it.
    await db.sql('ALTER TABLE engine_metadata.metadata ALTER COLUMN metadata TYPE jsonb USING metadata::jsonb');
    expect(await columnType()).toBe('jsonb');
    const second = await startTestEngine({ databaseUrl: db.url });
    try {
      expect(await columnType()).toBe('json');
      const q = await second.graphql('{ note { id body } }');
      expect(q.body).toEqual({ data: { note: [{ id: 1, body: 'kept' }] } });
      const untrack = await second.metadata({ type: 'pg_untrack_table', args: { source: 'default', table: 'note' } });
      expect(untrack.status, untrack.text).toBe(200);
      const stored = await db.sql('SELECT resource_version, metadata::text AS m FROM engine_metadata.metadata');
      expect((stored.rows[0] as { m: string }).m).not.toContain('"note"');
    } finally {
      await second.close();
    }
  });
});
