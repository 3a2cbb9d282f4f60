/**
 * The 300-table bulk of test/integration/metadata/bulk-replace.test.ts: one catalog build for
 * the whole bulk (Note [Deferred builds]). In the scale project for its time (tens of seconds on
 * a loaded machine).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

describe('bulk', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  it('tracks hundreds of tables in one bulk with one catalog build', async () => {
    const n = 300;
    const ddl = Array.from(
      { length: n },
      (_, i) => `CREATE TABLE many_${i} (id int PRIMARY KEY, prev_id int${i === 0 ? '' : ` REFERENCES many_${i - 1}(id)`}, a text, b text);`,
    ).join('\n');
    await f.db.sql(ddl);
    expect((await f.md('reload_metadata')).status).toBe(200);
    const calls: unknown[] = [];
    for (let i = 0; i < n; i++) calls.push({ type: 'pg_track_table', args: { table: `many_${i}` } });
    for (let i = 1; i < n; i++) {
      calls.push({ type: 'pg_create_object_relationship', args: { table: `many_${i}`, name: 'prev', using: { foreign_key_constraint_on: 'prev_id' } } });
      calls.push({
        type: 'pg_create_array_relationship',
        args: { table: `many_${i - 1}`, name: 'next', using: { foreign_key_constraint_on: { table: `many_${i}`, columns: ['prev_id'] } } },
      });
    }
    const versionBefore = f.engine.engine.metadata.catalogRef.current.version;
    const r = await f.md('bulk', calls);
    expect(r.status).toBe(200);
    // One catalog build for the whole bulk (Note [Deferred builds]), not one per call.
    expect(f.engine.engine.metadata.catalogRef.current.version - versionBefore).toBe(1);
    expect(f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.get('public.many_5')?.relationships).toHaveLength(2);
    const untrack = await f.md(
      'bulk',
      Array.from({ length: n }, (_, i) => ({ type: 'pg_untrack_table', args: { table: `many_${i}`, cascade: true } })),
    );
    expect(untrack.status).toBe(200);
  });
});
