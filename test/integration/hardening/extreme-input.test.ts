/**
 * Issue 12, points 7 and 8b: extreme input answers a clean v2 error with a
 * path (Note [Depth bounds], Note [Permission literals]), and a failed
 * request's log line carries its cause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngine } from '../../../engine/boot.ts';
import { defaultSettings } from '../../../engine/cli/settings.ts';
import { createLogger } from '../../../engine/logger.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
let te: TestEngine;

/** `{"key":[` … leaf … `]}` nested `depth` times, as text (JSON.stringify would overflow building it). */
function nested(depth: number, leaf: string, key = '_and'): string {
  return `{"${key}":[`.repeat(depth) + leaf + ']}'.repeat(depth);
}

const perm = (role: string, filter: string): string =>
  `{"type":"pg_create_select_permission","args":{"table":"item","role":"${role}","permission":{"columns":["id"],"filter":${filter}}}}`;

beforeAll(async () => {
  db = await createTestDatabase('extreme');
  await db.sql(`CREATE TABLE item (id int PRIMARY KEY, ok bool, code uuid, at timestamptz, price numeric, doc jsonb);
    INSERT INTO item VALUES (1, true, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', now(), 1.5, '{}');
    CREATE FUNCTION boom() RETURNS int AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$ LANGUAGE plpgsql;
    CREATE VIEW boom_view AS SELECT boom() AS x`);
  te = await startTestEngine({ databaseUrl: db.url });
  expect((await te.metadata({ type: 'pg_track_table', args: { table: 'item' } })).body).toEqual({ message: 'success' });
  const rel = {
    type: 'pg_create_object_relationship',
    args: { table: 'item', name: 'self', using: { manual_configuration: { remote_table: 'item', column_mapping: { id: 'id' } } } },
  };
  expect((await te.metadata(rel)).body).toEqual({ message: 'success' });
});

afterAll(async () => {
  await te?.close();
  await db?.drop();
});

describe('deep nesting', () => {
  it('a permission filter nested 5,000 deep is a 400 parse-failed with a path', async () => {
    const r = await te.post('/v1/metadata', perm('deep', nested(5000, '{"id":{"_eq":1}}')));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'parse-failed',
      error: 'the body is nested more than 500 levels deep',
      path: expect.stringMatching(/^\$\.args\.permission\.filter\._and\[0\]/),
    });
  });

  it('a permission filter past the bool-exp bound (but within the body bound) is refused by the catalog with its path', async () => {
    const r = await te.post('/v1/metadata', perm('deep', nested(150, '{"id":{"_eq":1}}')));
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('the boolean expression is nested more than 100 levels deep (at filter._and[0]');
    const fine = await te.post('/v1/metadata', perm('fine', nested(50, '{"id":{"_eq":1}}')));
    expect(fine.body).toEqual({ message: 'success' });
  });

  it('a 5,000-deep where variable is validation-failed, not a stack overflow', async () => {
    const body = `{"query":"query($w: item_bool_exp){ item(where: $w) { id } }","variables":{"w":${nested(5000, '{"id":{"_eq":1}}')}}}`;
    const r = await te.post('/v1/graphql', body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      errors: [{ message: 'the variables are nested too deeply', extensions: { path: '$.variableValues', code: 'validation-failed' } }],
    });
  });

  it('a 150-deep where variable is refused at the bool-exp bound with its path; 50 deep runs', async () => {
    const q = 'query($w: item_bool_exp){ item(where: $w) { id } }';
    const r = await te.post('/v1/graphql', `{"query":"${q}","variables":{"w":${nested(150, '{"id":{"_eq":1}}')}}}`);
    expect(r.body).toMatchObject({
      errors: [
        {
          message: 'the boolean expression is nested more than 100 levels deep',
          extensions: { code: 'validation-failed', path: expect.stringMatching(/^\$\.selectionSet\.item\.args\.where\._and\[0\]/) },
        },
      ],
    });
    const ok = await te.post('/v1/graphql', `{"query":"${q}","variables":{"w":${nested(50, '{"id":{"_eq":1}}')}}}`);
    expect(ok.body).toEqual({ data: { item: [{ id: 1 }] } });
  });

  it('a 1,000-deep selection is validation-failed with a path, before any SQL', async () => {
    const r = await te.graphql(`{ item { ${'self { '.repeat(1000)}id${' }'.repeat(1000)} } }`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      errors: [
        {
          message: 'the selection set is nested more than 100 levels deep',
          extensions: { code: 'validation-failed', path: expect.stringMatching(/^\$\.selectionSet\.item\.selectionSet\.self/) },
        },
      ],
    });
    const ok = await te.graphql(`{ item { ${'self { '.repeat(50)}id${' }'.repeat(50)} } }`);
    expect(ok.status).toBe(200);
    expect(JSON.stringify(ok.body)).not.toContain('errors');
  });
});

describe('odd unicode in metadata', () => {
  it('a lone surrogate or a NUL in a role name is a 400 parse-failed at its path', async () => {
    const r = await te.post(
      '/v1/metadata',
      '{"type":"pg_create_select_permission","args":{"table":"item","role":"r\\ud800","permission":{"columns":["id"],"filter":{}}}}',
    );
    expect(r).toMatchObject({ status: 400, body: { path: '$.args.role', code: 'parse-failed' } });
    const nul = await te.post(
      '/v1/metadata',
      '{"type":"pg_create_select_permission","args":{"table":"item","role":"r\\u0000","permission":{"columns":["id"],"filter":{}}}}',
    );
    expect(nul).toMatchObject({ status: 400, body: { path: '$.args.role', code: 'parse-failed' } });
    const paired = await te.post('/v1/metadata', perm('r\\ud83d\\ude00', '{}'));
    expect(paired.body).toEqual({ message: 'success' });
  });
});

describe('permission literals', () => {
  it.each([
    ['{"id":{"_eq":"abc"}}', 'expects an integer for column "id" of type int4, not "abc" (at filter.id._eq)'],
    ['{"id":"abc"}', 'expects an integer for column "id" of type int4, not "abc" (at filter.id)'],
    ['{"id":{"_in":[1,"x"]}}', 'expects an integer for column "id" of type int4, not "x" (at filter.id._in[1])'],
    ['{"_or":[{"ok":{"_eq":"maybe"}}]}', 'expects a boolean for column "ok" of type bool, not "maybe" (at filter._or[0].ok._eq)'],
    ['{"code":{"_eq":"not-a-uuid"}}', 'expects a uuid for column "code" of type uuid'],
    ['{"price":{"_gt":"cheap"}}', 'expects a number for column "price" of type numeric'],
    ['{"self":{"at":{"_lt":true}}}', 'expects a date or time for column "at" of type timestamptz, not true (at filter.self.at._lt)'],
  ])('refuses %s with the path of the literal', async (filter, message) => {
    const r = await te.post('/v1/metadata', perm('lit', filter));
    expect(r.status).toBe(400);
    expect((r.body as { error: string }).error).toContain(message);
  });

  it('accepts literals of the right type and session variables', async () => {
    const filter =
      '{"id":{"_eq":"1"},"ok":{"_eq":"t"},"code":{"_eq":"{a0eebc999c0b4ef8bb6d6bb9bd380a11}"},"at":{"_lt":"tomorrow"},"price":{"_gte":"1.5"},"doc":{"_contains":{}},"_or":[{"id":{"_eq":"X-Engine-User-Id"}},{"id":{"_in":[1,2]}}]}';
    expect((await te.post('/v1/metadata', perm('typed', filter))).body).toEqual({ message: 'success' });
    const r = await te.graphql('{ item { id } }', undefined, { 'x-engine-role': 'typed', 'x-engine-user-id': '1' });
    expect(r.body).toEqual({ data: { item: [{ id: 1 }] } });
  });
});

describe('logging of failed requests', () => {
  it('logs the message, code and internal details, not [object Object]', async () => {
    const lines: string[] = [];
    const engine = await buildEngine(
      defaultSettings({ databaseUrl: db.url, logLevel: 'error' }),
      createLogger({ level: 'error', write: (l) => lines.push(l) }),
    );
    try {
      const url = await engine.app.listen({ port: 0, host: '127.0.0.1' });
      // A database error of no class the engine maps (P0001, raise_exception) answers `unexpected`, which is logged.
      const track = await fetch(`${url}/v1/metadata`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'pg_track_table', args: { table: 'boom_view' } }),
      });
      expect(await track.text()).toBe('{"message":"success"}');
      const res = await fetch(`${url}/v1/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ boom_view { x } }' }),
      });
      expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: 'unexpected' } }] });
      const failed = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => (l['detail'] as Record<string, unknown>)['message'] === 'graphql request failed');
      expect(lines.join('')).not.toContain('[object Object]');
      expect(failed[0]).toMatchObject({
        type: 'unstructured',
        level: 'error',
        detail: { error: { message: 'database query error', code: 'unexpected', internal: { error: { message: 'boom' } } } },
      });
    } finally {
      await engine.close();
    }
  });
});
