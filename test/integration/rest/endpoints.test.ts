/**
 * REST endpoints as a user sees them: create_rest_endpoint and
 * drop_rest_endpoint with their 400s, /api/rest/<url> with path, query-string
 * and body variables coerced, permissions and authentication as on
 * /v1/graphql, and every error status in v2's `{path, error, code}`; the
 * OpenAPI document at /api/swagger/json checked by a real OpenAPI validator.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
let e: TestEngine;
const admin = { 'x-engine-admin-secret': 's' };
const user = { ...admin, 'x-engine-role': 'user', 'x-engine-user-id': '1' };

const QUERIES = [
  { name: 'by_pk', query: 'query AuthorByPk($id: Int!) { author_by_pk(id: $id) { id name } }' },
  {
    name: 'search',
    query:
      'query Search($name: String!, $limit: Int = 10, $active: Boolean! = true, $where: author_bool_exp = {}) { author(where: {_and: [{name: {_ilike: $name}}, {active: {_eq: $active}}, $where]}, limit: $limit, order_by: {id: asc}) { id name } }',
  },
  { name: 'add', query: 'mutation Add($id: Int!, $name: String!) { insert_author_one(object: {id: $id, name: $name}) { id name } }' },
  { name: 'books', query: 'query Books($id: Int!) { author_by_pk(id: $id) { name ...B } } fragment B on author { books { title score } }' },
  { name: 'sub', query: 'subscription S { author { id } }' },
  { name: 'two', query: 'query A { author { id } } query B { book { id } }' },
  { name: 'mine', query: '{ book { title } }' },
];

async function meta(type: string, args: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await e.metadata({ type, args });
  return { status: r.status, body: r.body as Record<string, unknown> };
}

function endpoint(name: string, url: string, methods: string[], query: string): { type: string; args: unknown } {
  return { type: 'create_rest_endpoint', args: { name, url, methods, definition: { query: { collection_name: 'rest', query_name: query } } } };
}

beforeAll(async () => {
  db = await createTestDatabase('rest');
  await db.sql(`
    CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL, active boolean NOT NULL DEFAULT true);
    CREATE TABLE book (id int PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL, score numeric);
    INSERT INTO author VALUES (1, 'Ann', true), (2, 'Bob', false), (3, 'Anna', true);
    INSERT INTO book VALUES (1, 1, 'One', 4.5), (2, 2, 'Two', null);
  `);
  e = await startTestEngine({ databaseUrl: db.url, adminSecret: 's' });
  const setup = await e.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      { type: 'pg_track_table', args: { table: 'book' } },
      {
        type: 'pg_create_array_relationship',
        args: { table: 'author', name: 'books', using: { foreign_key_constraint_on: { table: 'book', columns: ['author_id'] } } },
      },
      {
        type: 'pg_create_select_permission',
        args: { table: 'book', role: 'user', permission: { columns: ['title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } } } },
      },
      { type: 'create_query_collection', args: { name: 'rest', definition: { queries: QUERIES } } },
      endpoint('by_pk', 'authors/:id', ['GET'], 'by_pk'),
      endpoint('search', 'search/authors/:name', ['GET', 'POST'], 'search'),
      endpoint('add', 'authors', ['POST', 'PUT'], 'add'),
      endpoint('books', 'authors/:id/books', ['GET'], 'books'),
      endpoint('mine', 'my/books', ['GET'], 'mine'),
    ],
  });
  expect(setup.status, JSON.stringify(setup.body)).toBe(200);
});

afterAll(async () => {
  await e?.close();
  await db?.drop();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = admin,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${e.url}/api/rest/${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text.length > 0 ? (JSON.parse(text) as unknown) : null, headers: res.headers };
}

describe('create_rest_endpoint and drop_rest_endpoint', () => {
  it('refuses bad endpoints with a clear 400', async () => {
    const cases: Array<[unknown, string, string]> = [
      [endpoint('by_pk', 'other/:id', ['GET'], 'by_pk').args, 'already-exists', '$.args.name'],
      [endpoint('x', 'x/:id', ['GET'], 'nope').args, 'not-exists', '$.args.definition.query.query_name'],
      [
        { name: 'x', url: 'x', methods: ['GET'], definition: { query: { collection_name: 'none', query_name: 'by_pk' } } },
        'not-exists',
        '$.args.definition.query.collection_name',
      ],
      [endpoint('x', 'x/:id', ['get'], 'by_pk').args, 'parse-failed', '$.args.methods[0]'],
      [endpoint('x', 'x/:id', ['FETCH'], 'by_pk').args, 'parse-failed', '$.args.methods[0]'],
      [endpoint('x', 'x/:id', [], 'by_pk').args, 'parse-failed', '$.args.methods'],
      [endpoint('x', '/x/:id', ['GET'], 'by_pk').args, 'parse-failed', '$.args.url'],
      [endpoint('x', 'x/:1d', ['GET'], 'by_pk').args, 'parse-failed', '$.args.url'],
      [endpoint('x', 'x//y', ['GET'], 'by_pk').args, 'parse-failed', '$.args.url'],
    ];
    for (const [args, code, path] of cases) {
      const r = await meta('create_rest_endpoint', args);
      expect(r.status, JSON.stringify(args)).toBe(400);
      expect(r.body, JSON.stringify(args)).toMatchObject({ code, path });
    }
  });

  it('refuses a URL clashing with another endpoint for a shared method, subscriptions and unknown parameters', async () => {
    const clash = await meta('create_rest_endpoint', endpoint('x', 'authors/:id', ['PUT', 'GET'], 'by_pk').args);
    expect(clash.status).toBe(400);
    expect(clash.body).toMatchObject({ code: 'invalid-configuration' });
    expect(clash.body['error']).toContain('clashes with "authors/:id" of endpoint "by_pk" for GET');
    const literal = await meta('create_rest_endpoint', endpoint('x', 'authors/top', ['GET'], 'mine').args);
    expect(literal.body['error']).toContain('clashes');
    // Another method on the same template does not clash.
    expect((await meta('create_rest_endpoint', endpoint('x', 'authors/:id', ['DELETE'], 'by_pk').args)).status).toBe(200);
    expect((await meta('drop_rest_endpoint', { name: 'x' })).status).toBe(200);
    const sub = await meta('create_rest_endpoint', endpoint('x', 'sub', ['GET'], 'sub').args);
    expect(sub.body).toMatchObject({ code: 'invalid-configuration' });
    expect(sub.body['error']).toContain('a subscription cannot be a REST endpoint');
    const two = await meta('create_rest_endpoint', endpoint('x', 'two', ['GET'], 'two').args);
    expect(two.body['error']).toContain('exactly one operation');
    const param = await meta('create_rest_endpoint', endpoint('x', 'x/:nope', ['GET'], 'by_pk').args);
    expect(param.body['error']).toContain('":nope" is not a variable');
    const gone = await meta('drop_rest_endpoint', { name: 'x' });
    expect(gone.body).toMatchObject({ code: 'not-exists', path: '$.args.name' });
  });

  it('exports endpoints, reports them as dependents of their query, and drops them', async () => {
    const doc = (await e.metadata({ type: 'export_metadata', args: {} })).body as Record<string, unknown>;
    expect(doc['rest_endpoints']).toContainEqual({
      name: 'by_pk',
      url: 'authors/:id',
      methods: ['GET'],
      definition: { query: { collection_name: 'rest', query_name: 'by_pk' } },
    });
    const dep = await meta('drop_query_from_collection', { collection_name: 'rest', query_name: 'by_pk' });
    expect(dep.status).toBe(400);
    expect(dep.body).toMatchObject({ code: 'dependency-error' });
    expect(dep.body['error']).toContain('rest endpoint by_pk');
    const coll = await meta('drop_query_collection', { collection: 'rest', cascade: false });
    expect(coll.body).toMatchObject({ code: 'dependency-error' });
    expect((await meta('create_rest_endpoint', endpoint('tmp', 'tmp/:id', ['GET'], 'by_pk').args)).status).toBe(200);
    expect((await call('GET', 'tmp/1')).status).toBe(200);
    expect((await meta('drop_rest_endpoint', { name: 'tmp' })).body).toEqual({ message: 'success' });
    expect((await call('GET', 'tmp/1')).status).toBe(404);
  });
});

describe('/api/rest', () => {
  it('answers the data object, path parameters coerced to the variable types', async () => {
    const r = await call('GET', 'authors/1');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.body).toEqual({ author_by_pk: { id: 1, name: 'Ann' } });
    expect((await call('GET', 'authors/1/books')).body).toEqual({ author_by_pk: { name: 'Ann', books: [{ title: 'One', score: 4.5 }] } });
    expect((await call('GET', 'authors/9')).body).toEqual({ author_by_pk: null });
  });

  it('reads query-string parameters and the JSON body as variables', async () => {
    expect((await call('GET', 'search/authors/An%25?limit=1')).body).toEqual({ author: [{ id: 1, name: 'Ann' }] });
    expect((await call('GET', 'search/authors/%25?active=false')).body).toEqual({ author: [{ id: 2, name: 'Bob' }] });
    expect((await call('GET', `search/authors/%25?where=${encodeURIComponent('{"id":{"_gt":2}}')}`)).body).toEqual({ author: [{ id: 3, name: 'Anna' }] });
    expect((await call('POST', 'search/authors/%25', { limit: 2, where: { id: { _lt: 3 } } })).body).toEqual({ author: [{ id: 1, name: 'Ann' }] });
    expect((await call('POST', 'search/authors/%25', { active: false, where: { id: { _lt: 3 } } })).body).toEqual({ author: [{ id: 2, name: 'Bob' }] });
    // The path wins over the body.
    expect((await call('POST', 'search/authors/Bob', { name: 'Ann', active: false })).body).toEqual({ author: [{ id: 2, name: 'Bob' }] });
    const added = await call('POST', 'authors', { id: 10, name: 'New' });
    expect(added.body).toEqual({ insert_author_one: { id: 10, name: 'New' } });
    expect((await call('PUT', 'authors?id=11&name=Q')).body).toEqual({ insert_author_one: { id: 11, name: 'Q' } });
  });

  it('applies authentication and permissions as /v1/graphql does', async () => {
    expect((await call('GET', 'my/books', undefined, user)).body).toEqual({ book: [{ title: 'One' }] });
    const denied = await call('GET', 'authors/1', undefined, user);
    expect(denied.status).toBe(400);
    expect(denied.body).toMatchObject({ code: 'validation-failed', path: '$.selectionSet.author_by_pk' });
    const noSecret = await call('GET', 'authors/1', undefined, {});
    expect(noSecret.status).toBe(401);
    expect(noSecret.body).toMatchObject({ code: 'access-denied', path: '$' });
  });

  it('answers 404, 405 with Allow, and 400 in v2 shapes', async () => {
    const missing = await call('GET', 'nothing/here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ path: '$', error: 'Endpoint not found', code: 'not-found' });
    const wrong = await call('DELETE', 'authors/1');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect(wrong.body).toMatchObject({ path: '$', code: 'method-not-allowed' });
    const wrong2 = await call('GET', 'authors');
    expect(wrong2.status).toBe(405);
    expect(wrong2.headers.get('allow')).toBe('POST, PUT');
    const uncoercible = await call('GET', 'authors/abc');
    expect(uncoercible.status).toBe(400);
    expect(uncoercible.body).toEqual({ path: '$', error: 'the value "abc" of variable "id" is not an Int', code: 'validation-failed' });
    for (const q of ['active=yes', 'limit=1.5', 'limit=99999999999', 'where=%7Bnot-json']) {
      const r = await call('GET', `search/authors/x?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toMatchObject({ path: '$', code: 'validation-failed' });
    }
    const required = await call('POST', 'authors', { id: 12 });
    expect(required.status).toBe(400);
    expect(required.body).toMatchObject({ code: 'validation-failed', error: expect.stringContaining('variable "name" is required') });
    const badBodyType = await call('POST', 'authors', { id: 'x', name: 'n' });
    expect(badBodyType.status).toBe(400);
    expect(badBodyType.body).toMatchObject({ code: 'validation-failed' });
    const badJson = await call('POST', 'authors', '{nope');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ code: 'invalid-json' });
    const conflict = await call('POST', 'authors', { id: 1, name: 'dup' });
    expect(conflict.status).toBe(400);
    expect(conflict.body).toMatchObject({ code: 'constraint-violation' });
  });
});

describe('the fastify route and the fast path', () => {
  it('answer alike (inject reaches the fastify route only)', async () => {
    for (const [method, url, payload] of [
      ['GET', '/api/rest/authors/1', undefined],
      ['DELETE', '/api/rest/authors/1', undefined],
      ['GET', '/api/rest/authors/abc', undefined],
      ['POST', '/api/rest/search/authors/%25', JSON.stringify({ limit: 1 })],
      ['GET', '/api/rest/none', undefined],
    ] as const) {
      const viaFastify = await e.engine.app.inject({
        method,
        url,
        headers: { ...admin, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { payload }),
      });
      const viaFastPath = await call(method, url.slice('/api/rest/'.length), payload === undefined ? undefined : payload);
      expect(viaFastify.statusCode, url).toBe(viaFastPath.status);
      expect(JSON.parse(viaFastify.body), url).toEqual(viaFastPath.body);
      expect(viaFastify.headers['allow'] ?? null, url).toBe(viaFastPath.headers.get('allow'));
    }
  });
});

describe('large answers', () => {
  it('go out as the bytes PostgreSQL sent, on both paths, with their byte length', async () => {
    // A lone read's data object as a byte string (Note [Answer bytes]): characters of every UTF-8 length.
    await db.sql(`CREATE TABLE word (id int PRIMARY KEY, name text NOT NULL);
      INSERT INTO word SELECT i, 'w' || i || ' Beyoncé Дмитрий 東京 🎸 "q" \\ b' FROM generate_series(1, 3000) AS i;`);
    const setup = await e.metadata({
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'word' } },
        { type: 'add_query_to_collection', args: { collection_name: 'rest', query_name: 'words', query: '{ word(order_by: {id: asc}) { id name } }' } },
        endpoint('words', 'words', ['GET'], 'words'),
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    try {
      const res = await fetch(`${e.url}/api/rest/words`, { headers: { ...admin, 'accept-encoding': 'identity' } });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(bytes.length).toBeGreaterThan(200_000);
      const words = (JSON.parse(bytes.toString('utf8')) as { word: Array<{ id: number; name: string }> }).word;
      expect(words).toHaveLength(3000);
      expect(words[2999]).toEqual({ id: 3000, name: 'w3000 Beyoncé Дмитрий 東京 🎸 "q" \\ b' });
      // The same bytes as /v1/graphql's data object, and as the fastify route's.
      const graphql = Buffer.from(
        await (
          await fetch(`${e.url}/v1/graphql`, {
            method: 'POST',
            headers: { ...admin, 'content-type': 'application/json', 'accept-encoding': 'identity' },
            body: JSON.stringify({ query: '{ word(order_by: {id: asc}) { id name } }' }),
          })
        ).arrayBuffer(),
      );
      expect(graphql.subarray('{"data":'.length, -1).equals(bytes)).toBe(true);
      const viaFastify = await e.engine.app.inject({ method: 'GET', url: '/api/rest/words', headers: admin });
      expect(viaFastify.rawPayload.equals(bytes)).toBe(true);
    } finally {
      await e.metadata({ type: 'drop_rest_endpoint', args: { name: 'words' } });
      await e.metadata({ type: 'drop_query_from_collection', args: { collection_name: 'rest', query_name: 'words' } });
    }
  });
});

describe('/api/swagger/json', () => {
  it('is a valid OpenAPI 3 document of every endpoint, for the admin only', async () => {
    const r = await e.get('/api/swagger/json');
    expect(r.status).toBe(200);
    const doc = r.body as {
      openapi: string;
      paths: Record<string, Record<string, { parameters: unknown[]; responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>;
    };
    // A real validator: throws on anything that breaks the OpenAPI 3 schema or its $refs.
    await SwaggerParser.validate(structuredClone(doc) as never);
    // v2's document says 3.0.0.
    expect(doc.openapi).toBe('3.0.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/rest/authors',
      '/api/rest/authors/{id}',
      '/api/rest/authors/{id}/books',
      '/api/rest/my/books',
      '/api/rest/search/authors/{name}',
    ]);
    expect(Object.keys(doc.paths['/api/rest/search/authors/{name}'] ?? {}).sort()).toEqual(['get', 'post']);
    const byPk = doc.paths['/api/rest/authors/{id}']?.['get'];
    expect(byPk?.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }]);
    expect(byPk?.responses['200']?.content['application/json']?.schema).toEqual({
      type: 'object',
      properties: { author_by_pk: { type: 'object', nullable: true, properties: { id: { type: 'integer' }, name: { type: 'string' } } } },
    });
    const search = doc.paths['/api/rest/search/authors/{name}']?.['get'];
    expect(search?.parameters).toContainEqual({ name: 'limit', in: 'query', required: false, schema: { type: 'integer' } });
    expect(search?.parameters).toContainEqual({ name: 'active', in: 'query', required: false, schema: { type: 'boolean' } });
    const books = doc.paths['/api/rest/authors/{id}/books']?.['get']?.responses['200']?.content['application/json']?.schema as {
      properties: { author_by_pk: { properties: { books: unknown } } };
    };
    expect(books.properties.author_by_pk.properties.books).toEqual({
      type: 'array',
      items: { type: 'object', properties: { title: { type: 'string' }, score: { type: 'number', nullable: true } } },
    });
    const asUser = await e.get('/api/swagger/json', user);
    expect(asUser.status).toBe(400);
    expect(asUser.body).toMatchObject({ code: 'access-denied' });
  });
});
