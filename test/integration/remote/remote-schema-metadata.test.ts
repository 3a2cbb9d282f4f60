/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote schema metadata through HTTP, with real GraphQL servers on loopback:
 * add/update/remove/reload/introspect, url_from_env, configured headers,
 * timeouts, customization, and refusals that store nothing (a server down,
 * answering 500 or garbage, too slow, or clashing with the database's names
 * or another remote's); export/replace carry remote schemas whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let countries: GraphqlTestServer;
let other: GraphqlTestServer;

const COUNTRIES_SDL = `
type Country { code: ID! name: String! }
type Query { countries: [Country!]! country(code: ID!): Country }
`;
const COUNTRIES = [
  { code: 'FR', name: 'France' },
  { code: 'DE', name: 'Germany' },
];
const countriesRoot = { countries: () => COUNTRIES, country: ({ code }: { code: string }) => COUNTRIES.find((c) => c.code === code) ?? null };

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const exported = async (): Promise<any> => (await md('export_metadata', {})).body;

beforeAll(async () => {
  db = await createTestDatabase('rsmd');
  await db.sql('CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);');
  engine = await startTestEngine({ databaseUrl: db.url });
  expect((await md('pg_track_table', { table: 'author' })).status).toBe(200);
  countries = await startGraphqlServer(COUNTRIES_SDL, countriesRoot);
  other = await startGraphqlServer('type Query { hello: String }', { hello: () => 'hi' });
});

afterAll(async () => {
  await engine?.close();
  await countries?.close();
  await other?.close();
  await db?.drop();
});

describe('add_remote_schema', () => {
  it('adds a reachable remote schema, sending the configured headers, and exports it', async () => {
    const def = { url: countries.url, headers: [{ name: 'X-Api-Key', value: 'k1' }], forward_client_headers: false, timeout_seconds: 5 };
    const r = await md('add_remote_schema', { name: 'countries', definition: def, comment: 'geo' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(countries.requests.at(-1)?.headers['x-api-key']).toBe('k1');
    const doc = await exported();
    expect(doc.remote_schemas).toEqual([{ name: 'countries', definition: def, comment: 'geo' }]);
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
  });

  it('refuses a name that is taken', async () => {
    const r = await md('add_remote_schema', { name: 'countries', definition: { url: other.url } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'already-exists', path: '$.args.name' });
  });

  it('refuses bad definitions with the path of the bad key', async () => {
    const none = await md('add_remote_schema', { name: 'x', definition: {} });
    expect(none.status).toBe(400);
    const bad = await md('add_remote_schema', { name: 'x', definition: { url: other.url, timeout_seconds: 'soon' } });
    expect(bad.status).toBe(400);
    expect(bad.body.path).toContain('timeout_seconds');
    const notUrl = await md('add_remote_schema', { name: 'x', definition: { url: 'not a url' } });
    expect(notUrl.status).toBe(400);
    expect(notUrl.body.error).toContain('not a valid URL');
  });

  // v2 compat: fetchRemoteSchema's failures are 400 remote-schema-error at $.args, a server down or
  // too slow "HTTP exception occurred while sending the request to <url as written>" (throwRemoteSchemaHttp).
  it('refuses with remote-schema-error, storing nothing, a server that is down, answers 500 or garbage, or is too slow', async () => {
    const before = await exported();
    const broken = await startGraphqlServer('type Query { b: Int }', { b: () => 1 });
    const downUrl = broken.url;
    const http = `HTTP exception occurred while sending the request to ${JSON.stringify(broken.url)}: `;
    const expected = {
      'status-500': 'the remote schema answered HTTP 500',
      garbage: 'the remote schema answered with invalid JSON',
      hang: `${http}the remote schema did not answer within 1 seconds`,
    };
    for (const mode of ['status-500', 'garbage', 'hang'] as const) {
      broken.mode = mode;
      const r = await md('add_remote_schema', { name: 'broken', definition: { url: broken.url, timeout_seconds: 1 } });
      expect(r.status, mode).toBe(400);
      expect(r.body, mode).toMatchObject({ code: 'remote-schema-error', path: '$.args', error: expected[mode] });
    }
    await broken.close();
    const down = await md('add_remote_schema', { name: 'broken', definition: { url: downUrl } });
    expect(down.status).toBe(400);
    expect(down.body).toMatchObject({ code: 'remote-schema-error', path: '$.args' });
    expect(down.body.error).toContain(`${http}could not reach the remote schema`);
    // Through url_from_env, v2 names the variable, not its value.
    process.env['ENGINE_TEST_DOWN_URL'] = downUrl;
    try {
      const fromEnv = await md('add_remote_schema', { name: 'broken', definition: { url_from_env: 'ENGINE_TEST_DOWN_URL' } });
      expect(fromEnv.status).toBe(400);
      expect(fromEnv.body).toMatchObject({ code: 'remote-schema-error', path: '$.args' });
      expect(fromEnv.body.error).toMatch(/^HTTP exception occurred while sending the request to "ENGINE_TEST_DOWN_URL": could not reach/);
    } finally {
      delete process.env['ENGINE_TEST_DOWN_URL'];
    }
    expect(await exported()).toEqual(before);
  });

  it('refuses a remote whose names clash with the database schema or another remote', async () => {
    const clash = await startGraphqlServer('type Query { author: String }', { author: () => 'x' });
    const r = await md('add_remote_schema', { name: 'clash', definition: { url: clash.url } });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('the root field "author"');
    const typeClash = await startGraphqlServer('type Country { x: Int } type Query { other_countries: [Country] }', { other_countries: () => [] });
    const t = await md('add_remote_schema', { name: 'typeclash', definition: { url: typeClash.url } });
    expect(t.status).toBe(400);
    expect(t.body.error).toContain('the type name "Country"');
    // Customization resolves the clash.
    const ok = await md('add_remote_schema', {
      name: 'typeclash',
      definition: { url: typeClash.url, customization: { type_names: { prefix: 'Other_' } } },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const intro = await md('introspect_remote_schema', { name: 'typeclash' });
    const names = intro.body.data.__schema.types.map((x: any) => x.name);
    expect(names).toContain('Other_Country');
    expect(names).not.toContain('Country');
    expect((await md('remove_remote_schema', { name: 'typeclash' })).status).toBe(200);
    await clash.close();
    await typeClash.close();
  });

  it('takes the url from the environment', async () => {
    process.env['ENGINE_TEST_REMOTE_URL'] = other.url;
    const r = await md('add_remote_schema', { name: 'envy', definition: { url_from_env: 'ENGINE_TEST_REMOTE_URL' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const missing = await md('add_remote_schema', { name: 'envless', definition: { url_from_env: 'ENGINE_TEST_NO_SUCH_VARIABLE' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('ENGINE_TEST_NO_SUCH_VARIABLE');
    expect((await md('remove_remote_schema', { name: 'envy' })).status).toBe(200);
    delete process.env['ENGINE_TEST_REMOTE_URL'];
  });
});

describe('introspect, reload, update, remove', () => {
  it('introspect_remote_schema answers the remote schema', async () => {
    const r = await md('introspect_remote_schema', { name: 'countries' });
    expect(r.status).toBe(200);
    expect(r.body.data.__schema.queryType.name).toBe('Query');
    expect((await md('introspect_remote_schema', { name: 'nope' })).body.code).toBe('not-exists');
  });

  it('reload_remote_schema picks up a changed schema; a server that went away makes it inconsistent until it is back', async () => {
    const changing = await startGraphqlServer('type Query { v1: Int }', { v1: () => 1 });
    expect((await md('add_remote_schema', { name: 'changing', definition: { url: changing.url } })).status).toBe(200);
    changing.setSchema('type Query { v1: Int v2: Int }', { v1: () => 1, v2: () => 2 });
    const fields = async (): Promise<string[]> =>
      (await md('introspect_remote_schema', { name: 'changing' })).body.data.__schema.types.find((t: any) => t.name === 'Query').fields.map((f: any) => f.name);
    expect(await fields()).toEqual(['v1']);
    expect((await md('reload_remote_schema', { name: 'changing' })).status).toBe(200);
    expect(await fields()).toEqual(['v1', 'v2']);
    changing.mode = 'status-500';
    expect((await md('reload_remote_schema', { name: 'changing' })).status).toBe(200);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.is_consistent).toBe(false);
    expect(inc.inconsistent_objects).toEqual([
      expect.objectContaining({ type: 'remote_schema', name: 'remote_schema changing', reason: expect.stringContaining('HTTP 500') }),
    ]);
    expect((await engine.get('/healthz')).text).toContain('WARN');
    changing.mode = 'ok';
    const reloaded = await md('reload_metadata', { reload_remote_schemas: ['changing'] });
    expect(reloaded.body.is_consistent).toBe(true);
    expect((await md('remove_remote_schema', { name: 'changing' })).status).toBe(200);
    await changing.close();
  });

  it('another engine on the same metadata introspects again after reload_remote_schema', async () => {
    const changing = await startGraphqlServer('type Query { a1: Int }', { a1: () => 1 });
    expect((await md('add_remote_schema', { name: 'shared', definition: { url: changing.url } })).status).toBe(200);
    const second = await startTestEngine({ databaseUrl: db.url });
    try {
      const fieldsOn = async (e: TestEngine): Promise<string[]> => {
        const r = (await e.metadata({ type: 'introspect_remote_schema', args: { name: 'shared' } })).body as any;
        return r.data?.__schema.types.find((t: any) => t.name === 'Query').fields.map((f: any) => f.name) ?? [];
      };
      expect(await fieldsOn(second)).toEqual(['a1']);
      changing.setSchema('type Query { a1: Int a2: Int }', { a1: () => 1, a2: () => 2 });
      expect((await md('reload_remote_schema', { name: 'shared' })).status).toBe(200);
      let seen: string[] = [];
      for (let i = 0; i < 100 && seen.length < 2; i++) {
        seen = await fieldsOn(second);
        if (seen.length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      expect(seen).toEqual(['a1', 'a2']);
    } finally {
      await second.close();
    }
    expect((await md('remove_remote_schema', { name: 'shared' })).status).toBe(200);
    await changing.close();
  });

  it('update_remote_schema introspects the new definition, and is refused when it does not answer', async () => {
    const second = await startGraphqlServer(COUNTRIES_SDL + 'extend type Query { capital(code: ID!): String }', { ...countriesRoot, capital: () => 'Paris' });
    const up = await md('update_remote_schema', { name: 'countries', definition: { url: second.url, timeout_seconds: 5 } });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const intro = (await md('introspect_remote_schema', { name: 'countries' })).body;
    expect(intro.data.__schema.types.find((t: any) => t.name === 'Query').fields.map((f: any) => f.name)).toContain('capital');
    second.mode = 'garbage';
    const bad = await md('update_remote_schema', { name: 'countries', definition: { url: second.url, timeout_seconds: 4 } });
    expect(bad.status).toBe(400);
    expect((await exported()).remote_schemas.find((r: any) => r.name === 'countries').definition).toEqual({ url: second.url, timeout_seconds: 5 });
    const back = await md('update_remote_schema', { name: 'countries', definition: { url: countries.url } });
    expect(back.status).toBe(200);
    expect((await md('update_remote_schema', { name: 'nope', definition: { url: countries.url } })).body.code).toBe('not-exists');
    await second.close();
  });

  // v2 drops a remote schema's permissions with it (removeRemoteSchemaP1 reports only other dependents).
  it('remove_remote_schema drops the permissions of the remote schema with it', async () => {
    const before = await exported();
    const perm = await md('add_remote_schema_permissions', {
      remote_schema: 'countries',
      role: 'user',
      definition: { schema: 'type Country { code: ID! } type Query { countries: [Country!]! }' },
    });
    expect(perm.status, JSON.stringify(perm.body)).toBe(200);
    const r = await md('remove_remote_schema', { name: 'countries' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await exported()).remote_schemas).toBeUndefined();
    expect((await md('remove_remote_schema', { name: 'nope' })).body.code).toBe('not-exists');
    expect((await md('replace_metadata', before)).status).toBe(200);
    expect((await exported()).remote_schemas[0].permissions).toBeUndefined();
  });

  it('replace_metadata installs remote schemas (refusing an unreachable one) and export gives them back', async () => {
    const doc = await exported();
    expect((await md('remove_remote_schema', { name: 'countries' })).status).toBe(200);
    expect((await exported()).remote_schemas).toBeUndefined();
    const r = await md('replace_metadata', doc);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await exported()).toEqual(doc);
    const broken = { ...doc, remote_schemas: [...doc.remote_schemas, { name: 'gone', definition: { url: 'http://127.0.0.1:9/graphql' } }] };
    const refused = await md('replace_metadata', broken);
    expect(refused.status).toBe(400);
    expect(await exported()).toEqual(doc);
    const allowed = await md('replace_metadata', { metadata: broken, allow_inconsistent_metadata: true });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect((await md('get_inconsistent_metadata', {})).body.inconsistent_objects.map((o: any) => o.name)).toEqual(['remote_schema gone']);
    expect((await md('replace_metadata', doc)).status).toBe(200);
  });
});
