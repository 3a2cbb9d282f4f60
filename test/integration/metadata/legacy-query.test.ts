/**
 * v2 compat (issue 15): the legacy `/v1/query` shorthand of `track_table` and
 * `untrack_table`, whose `args` may be the bare name of a `public` table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(async () => {
  await f?.close();
});

const authors = async (): Promise<unknown> => (await f.engine.graphql('{ authors(order_by: {id: asc}) { name } }')).body;

describe('track_table / untrack_table with a bare table name', () => {
  it('tracks and untracks the public table of that name', async () => {
    const t = await f.engine.post('/v1/query', { type: 'track_table', args: 'authors' });
    expect(t.status).toBe(200);
    expect(t.body).toEqual({ message: 'success' });
    expect(await authors()).toEqual({ data: { authors: [{ name: 'Ann' }, { name: 'Bob' }] } });
    expect((await f.exported()).sources[0].tables.map((x: { table: unknown }) => x.table)).toContainEqual({ schema: 'public', name: 'authors' });

    const again = await f.engine.post('/v1/query', { type: 'track_table', args: 'authors' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'already-tracked' });

    const u = await f.engine.post('/v1/query', { type: 'untrack_table', args: 'authors' });
    expect(u.status).toBe(200);
    expect(u.body).toEqual({ message: 'success' });
    const gone = (await authors()) as { errors: Array<{ extensions: { code: string } }> };
    expect(gone.errors[0]?.extensions.code).toBe('validation-failed');
  });

  it('inside a /v1/query bulk, and with clean errors for a missing table or a bad shape', async () => {
    const b = await f.engine.post('/v1/query', {
      type: 'bulk',
      args: [
        { type: 'track_table', args: 'article_status' },
        { type: 'untrack_table', args: 'article_status' },
      ],
    });
    expect(b.status).toBe(200);
    expect(b.body).toEqual([{ message: 'success' }, { message: 'success' }]);
    const missing = await f.engine.post('/v1/query', { type: 'track_table', args: 'no_such_table' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'invalid-configuration', path: '$.args' });
    const untracked = await f.engine.post('/v1/query', { type: 'untrack_table', args: 'profiles' });
    expect(untracked.status).toBe(400);
    expect(untracked.body).toMatchObject({ code: 'already-untracked' });
    const bad = await f.engine.post('/v1/query', { type: 'track_table', args: 42 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'parse-failed' });
    // /v1/metadata keeps the strict shape.
    const strict = await f.md('pg_track_table', 'authors');
    expect(strict.status).toBe(400);
  });
});
