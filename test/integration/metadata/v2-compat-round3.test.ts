/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2 compatibility, third round (issue 34), through HTTP against a real engine
 * and real GraphQL servers on loopback. Each block names the v2 behaviour it
 * matches (hasura/graphql-engine server source or server/tests-py cases).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema, introspectionFromSchema } from 'graphql';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { startTestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let hello: GraphqlTestServer;

const md = async (type: string, args: unknown, headers?: Record<string, string>): Promise<any> => await engine.metadata({ type, args }, headers);
const exported = async (): Promise<any> => (await md('export_metadata', {})).body;

beforeAll(async () => {
  db = await createTestDatabase('compat3');
  await db.sql(`CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    CREATE TABLE article (id int PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author(id));
    CREATE TABLE "users address" (id int CONSTRAINT users_address_pkey PRIMARY KEY, street text);
    CREATE FUNCTION search_articles(search text) RETURNS SETOF article LANGUAGE sql STABLE
      AS $$ SELECT * FROM article WHERE title ILIKE '%' || search || '%' $$;
    CREATE FUNCTION fetch_articles(author_row author) RETURNS SETOF article LANGUAGE sql STABLE
      AS $$ SELECT * FROM article WHERE author_id = author_row.id $$;`);
  engine = await startTestEngine({ databaseUrl: db.url });
  const tracked = await md('pg_track_table', { table: 'author' });
  expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
  hello = await startGraphqlServer('type Query { hello: String }', { hello: () => 'hi' });
});

afterAll(async () => {
  await engine?.close();
  await hello?.close();
  await db?.drop();
});

// v2: RemoteSchemaDef's `url` is an InputWebhook, resolved by validateRemoteSchemaDef with
// resolveWebhook (Hasura/RemoteSchema/MetadataAPI/Core.hs).
describe('{{ENV}} templates in a remote schema url', () => {
  it('resolves the template from the environment, keeps it as written in the metadata, and queries through it', async () => {
    process.env['ENGINE_TEST_GRAPHQL_SERVICE'] = hello.url.replace(/\/graphql$/, '');
    try {
      const def = { url: '{{ENGINE_TEST_GRAPHQL_SERVICE}}/graphql' };
      const r = await md('add_remote_schema', { name: 'templated', definition: def });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect((await exported()).remote_schemas).toEqual([{ name: 'templated', definition: def }]);
      const q = await engine.graphql('{ hello }');
      expect(q.body).toEqual({ data: { hello: 'hi' } });
      expect((await md('remove_remote_schema', { name: 'templated' })).status).toBe(200);
    } finally {
      delete process.env['ENGINE_TEST_GRAPHQL_SERVICE'];
    }
  });

  it('refuses a template naming an unset variable, naming it, and stores nothing', async () => {
    const before = await exported();
    const r = await md('add_remote_schema', { name: 'unset', definition: { url: '{{ENGINE_TEST_NO_SUCH_SERVICE}}/graphql' } });
    expect(r.status).toBe(400);
    // v2's validateRemoteSchemaDef: an unresolvable definition is invalid-params.
    expect(r.body).toMatchObject({ code: 'invalid-params', path: '$.args' });
    expect(r.body.error).toContain('ENGINE_TEST_NO_SUCH_SERVICE');
    expect(await exported()).toEqual(before);
  });
});

// v2 reads optional keys with aeson's `.:?`, for which null is the key left out (e.g.
// RemoteSchemaDef's FromJSON: `o .:? "timeout_seconds"`; PostgresPoolSettings likewise).
describe('explicit null for an optional key is the key left out', () => {
  it('add_remote_schema with null optional keys stores and exports none of them', async () => {
    const r = await md('add_remote_schema', {
      name: 'nully',
      comment: null,
      definition: { url: hello.url, url_from_env: null, headers: null, forward_client_headers: null, timeout_seconds: null, customization: null },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await exported()).remote_schemas).toEqual([{ name: 'nully', definition: { url: hello.url } }]);
    expect((await md('remove_remote_schema', { name: 'nully' })).status).toBe(200);
  });

  it('pg_add_source with null pool settings and connection options stores none of them', async () => {
    const r = await md('pg_add_source', {
      name: 'nullpool',
      configuration: {
        connection_info: {
          database_url: db.url,
          pool_settings: { max_connections: null, idle_timeout: null, retries: null, pool_timeout: 30 },
          use_prepared_statements: null,
          isolation_level: null,
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const source = (await exported()).sources.find((s: any) => s.name === 'nullpool');
    expect(source.configuration).toEqual({ connection_info: { database_url: db.url, pool_settings: { pool_timeout: 30 } } });
    expect((await md('pg_drop_source', { name: 'nullpool' })).status).toBe(200);
  });

  it('create_action with null optional keys stores none of them', async () => {
    const types = { objects: [{ name: 'Greeting', fields: [{ name: 'text', type: 'String' }] }] };
    expect((await md('set_custom_types', types)).status).toBe(200);
    const r = await md('create_action', {
      name: 'greet',
      comment: null,
      definition: {
        kind: null,
        type: null,
        handler: 'http://127.0.0.1:9/greet',
        output_type: 'Greeting',
        forward_client_headers: null,
        timeout: null,
        headers: null,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await exported()).actions).toEqual([{ name: 'greet', definition: { handler: 'http://127.0.0.1:9/greet', output_type: 'Greeting' } }]);
    expect((await md('drop_action', { name: 'greet' })).status).toBe(200);
    expect((await md('set_custom_types', {})).status).toBe(200);
  });

  it('a required key given as null is still refused, at its path', async () => {
    const r = await md('add_remote_schema', { name: null, definition: { url: hello.url } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'parse-failed', path: '$.args.name' });
    expect(r.body.error).toContain('encountered Null');
    const url = await md('pg_add_source', { name: 'x', configuration: { connection_info: { database_url: null } } });
    expect(url.status).toBe(400);
    expect(url.body.path).toBe('$.args.configuration.connection_info.database_url');
  });
});

// v2: tests-py queries/v1/metadata/rename_source.yaml, pg_add_source.yaml and
// pg_add_source_with_parameters.yaml; runRenameSource in Hasura/RQL/DDL/Schema/Source.hs.
describe('sources: rename_source, connection_parameters, error paths', () => {
  const params = (): Record<string, unknown> => {
    const u = new URL(db.url);
    return {
      host: u.hostname,
      port: Number(u.port),
      username: decodeURIComponent(u.username),
      ...(u.password === '' ? {} : { password: decodeURIComponent(u.password) }),
      database: u.pathname.slice(1),
    };
  };

  it('pg_add_source connects with connection_parameters, and exports them as given', async () => {
    const database_url = { connection_parameters: params() };
    const r = await md('pg_add_source', { name: 'byparts', configuration: { connection_info: { database_url } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const t = await md('pg_track_table', { source: 'byparts', table: 'author', configuration: { custom_name: 'byparts_author' } });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    await db.sql(`INSERT INTO author VALUES (1, 'Ann') ON CONFLICT DO NOTHING;`);
    expect((await engine.graphql('{ byparts_author { name } }')).body).toEqual({ data: { byparts_author: [{ name: 'Ann' }] } });
    const source = (await exported()).sources.find((s: any) => s.name === 'byparts');
    expect(source.configuration.connection_info.database_url).toEqual(database_url);
  });

  it('refuses a wrong password, and connection_parameters missing a part or beside from_env', async () => {
    const bad = await md('pg_add_source', {
      name: 'wrongpw',
      configuration: { connection_info: { database_url: { connection_parameters: { ...params(), password: 'surely-not-it' } } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid-configuration');
    const { port: _port, ...noPort } = params();
    const missing = await md('pg_add_source', { name: 'x', configuration: { connection_info: { database_url: { connection_parameters: noPort } } } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'parse-failed', path: '$.args.configuration.connection_info.database_url.connection_parameters' });
    expect(missing.body.error).toContain('port');
    const both = await md('pg_add_source', {
      name: 'x',
      configuration: { connection_info: { database_url: { from_env: 'X', connection_parameters: params() } } },
    });
    expect(both.status).toBe(400);
    expect(both.body.code).toBe('parse-failed');
    expect((await exported()).sources.map((s: any) => s.name)).toEqual(['default', 'byparts']);
  });

  it('answers a duplicate pg_add_source and a missing pg_drop_source at $.args', async () => {
    const dup = await md('pg_add_source', { name: 'byparts', configuration: { connection_info: { database_url: db.url } } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ code: 'already-exists', path: '$.args', error: 'source with name "byparts" already exists' });
    const gone = await md('pg_drop_source', { name: 'nosuch' });
    expect(gone.status).toBe(400);
    expect(gone.body).toEqual({ code: 'not-exists', path: '$.args', error: 'source with name "nosuch" does not exist' });
  });

  it('rename_source renames a source with its tables; refuses a missing source or a taken name', async () => {
    const r = await md('rename_source', { name: 'byparts', new_name: 'renamed' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    const names = (await exported()).sources.map((s: any) => s.name);
    expect(names).toEqual(['default', 'renamed']);
    const renamed = (await exported()).sources.find((s: any) => s.name === 'renamed');
    expect(renamed.tables.map((t: any) => t.table)).toEqual([{ schema: 'public', name: 'author' }]);
    expect((await engine.graphql('{ byparts_author { name } }')).body).toEqual({ data: { byparts_author: [{ name: 'Ann' }] } });
    expect((await md('pg_track_table', { source: 'byparts', table: 'author' })).body.code).toBe('not-exists');
    const missing = await md('rename_source', { name: 'byparts', new_name: 'other' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'not-exists', path: '$.args', error: 'Could not find source with name "byparts"' });
    const taken = await md('rename_source', { name: 'renamed', new_name: 'default' });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ code: 'already-exists', path: '$.args', error: 'Source with name "default" already exists' });
    const noArg = await md('rename_source', { name: 'renamed' });
    expect(noArg.body).toMatchObject({ code: 'parse-failed', path: '$.args' });
    expect((await md('pg_drop_source', { name: 'renamed', cascade: true })).status).toBe(200);
  });
});

// v2: authorizeV1MetadataApi, authorizeV1QueryApi and authorizeV2QueryApi throw under
// `withPathK "args"`; tests-py queries/v1/metadata/metadata_as_user_err.yaml.
describe('non-admin calls to the metadata APIs', () => {
  it('answer access-denied at $.args on /v1/metadata, /v1/query and /v2/query', async () => {
    const secured = await startTestEngine({ databaseUrl: db.url, adminSecret: 'compat3-secret', unauthorizedRole: 'anonymous' });
    try {
      const denied = { path: '$.args', error: 'restricted access : admin only', code: 'access-denied' };
      const asUser = { 'x-engine-role': 'user' };
      for (const [url, body] of [
        ['/v1/metadata', { type: 'export_metadata', args: {} }],
        ['/v1/metadata', { type: 'rename_source', args: { name: 'a', new_name: 'b' } }],
        ['/v1/query', { type: 'export_metadata', args: {} }],
        ['/v2/query', { type: 'run_sql', args: { sql: 'SELECT 1' } }],
      ] as const) {
        const r = await secured.post(url, body, asUser);
        expect(r.status, `${url} ${body.type}`).toBe(400);
        expect(r.body, `${url} ${body.type}`).toEqual(denied);
      }
      const admin = await secured.metadata({ type: 'export_metadata', args: {} });
      expect(admin.status).toBe(200);
    } finally {
      await secured.close();
    }
  });
});

// v2: tests-py queries/remote_schemas/add_remote_schema_with_iface_err_empty_fields_list.yaml,
// add_remote_schema_err_missing_arg.yaml, add_remote_schema_with_union_err_no_member_types.yaml,
// add_remote_schema_with_union_err_member_type_interface.yaml: `remote-schema-error` at $.args.
describe('a remote schema that is not valid GraphQL', () => {
  it('is refused with remote-schema-error at $.args, storing nothing', async () => {
    // The remote answers introspection of an invalid schema (as a server in another language might).
    let sdl = '';
    const server = await startTestServer((_req, _body, res) => {
      const data = introspectionFromSchema(buildSchema(sdl, { assumeValid: true }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
    try {
      const before = await exported();
      const cases: Array<[string, RegExp]> = [
        ['interface Character type Human implements Character { id: Int } type Query { c: Character h: Human }', /Character/],
        ['interface Character { id(ifaceArg: Int!): Int } type Droid implements Character { id: Int } type Query { c: Character d: Droid }', /ifaceArg/],
        ['union Nothing type Query { n: Nothing }', /Nothing/],
        [
          'interface Character { id: Int } type Human implements Character { id: Int } union Found = Character type Query { f: Found h: Human }',
          /Found|Character/,
        ],
      ];
      for (const [schema, words] of cases) {
        sdl = schema;
        const r = await md('add_remote_schema', { name: 'invalid', definition: { url: server.url } });
        expect(r.status, schema).toBe(400);
        expect(r.body, schema).toMatchObject({ code: 'remote-schema-error', path: '$.args' });
        expect(r.body.error, schema).toMatch(words);
        // v2 answers the bare message (addRemoteSchemaP2Setup), not the inconsistency's reason.
        expect(r.body.error, schema).toMatch(/^the remote schema(?: is not valid|'s introspection is not valid): /);
      }
      expect(await exported()).toEqual(before);
    } finally {
      await server.close();
    }
  });
});

// v2 refuses a table whose name is not a GraphQL name unless it has a custom_name
// (qualifiedObjectToName: "cannot include ... is not a valid GraphQL identifier"), and so does Engine.
describe('a table whose name is not a GraphQL name', () => {
  it('is refused without a custom_name, naming the way out, and tracked with one', async () => {
    const r = await md('pg_track_table', { table: 'users address' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ path: '$.args' });
    expect(r.body.error).toContain('custom_name');
    const named = await md('pg_track_table', { table: 'users address', configuration: { custom_name: 'users_address' } });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect((await engine.graphql('{ users_address { id street } }')).body).toEqual({ data: { users_address: [] } });
    expect((await md('pg_untrack_table', { table: 'users address' })).status).toBe(200);
  });
});

// v2: tests-py queries/v1/metadata/replace_metadata.yaml (functions: [search_articles]) and
// replace_metadata_wo_rs.yaml (functions: [{schema, name}], query_templates: []), both answered
// with success; version 1 documents list functions by name.
describe('replace_metadata of version 1 documents', () => {
  const tables = [
    {
      table: 'author',
      object_relationships: [],
      array_relationships: [{ using: { foreign_key_constraint_on: { column: 'author_id', table: 'article' } }, name: 'articles', comment: 'all articles' }],
      insert_permissions: [],
      select_permissions: [],
      update_permissions: [],
      delete_permissions: [],
      event_triggers: [],
      computed_fields: [{ name: 'get_articles', comment: null, definition: { function: 'fetch_articles', table_argument: 'author_row' } }],
    },
    {
      table: 'article',
      object_relationships: [{ using: { foreign_key_constraint_on: 'author_id' }, name: 'author', comment: null }],
      array_relationships: [],
      insert_permissions: [],
      select_permissions: [],
      update_permissions: [],
      delete_permissions: [],
      event_triggers: [],
    },
  ];

  it('takes functions given by name or as {schema, name}, and an empty query_templates', async () => {
    const before = await exported();
    await db.sql(`INSERT INTO author VALUES (7, 'Kim') ON CONFLICT DO NOTHING; INSERT INTO article VALUES (1, 'On GraphQL', 7);`);
    const cases: Array<[string, unknown]> = [
      ['/v1/metadata', { type: 'replace_metadata', args: { tables, functions: ['search_articles'] } }],
      ['/v1/query', { type: 'replace_metadata', args: { query_templates: [], tables, functions: [{ schema: 'public', name: 'search_articles' }] } }],
    ];
    try {
      for (const [url, body] of cases) {
        const r = await engine.post(url, body);
        expect(r.status, `${url} ${JSON.stringify(r.body)}`).toBe(200);
        expect(r.body).toEqual({ message: 'success' });
        const source = (await exported()).sources.find((x: any) => x.name === 'default');
        expect(source.functions).toEqual([{ function: { schema: 'public', name: 'search_articles' } }]);
        const q = await engine.graphql('{ search_articles(args: {search: "graph"}) { title author { name get_articles { id } } } }');
        expect(q.body, url).toEqual({ data: { search_articles: [{ title: 'On GraphQL', author: { name: 'Kim', get_articles: [{ id: 1 }] } }] } });
      }
      const templates = await md('replace_metadata', { query_templates: [{ name: 'q' }], tables });
      expect(templates.status).toBe(400);
      expect(templates.body).toMatchObject({ code: 'parse-failed', path: '$.args.query_templates' });
    } finally {
      expect((await md('replace_metadata', before)).status).toBe(200);
    }
  });
});

// v2: runUpdateSource (Hasura/RQL/DDL/Schema/Source.hs) replaces a source's configuration and/or
// customization; source customization puts the query, mutation and subscription root fields
// under the namespace and renames the generated types.
describe('pg_update_source', () => {
  it('sets a customization on an existing source, keeping its tables and configuration', async () => {
    const configuration = { connection_info: { database_url: db.url } };
    expect((await md('pg_add_source', { name: 'cust', configuration })).status).toBe(200);
    const tracked = await md('pg_track_table', { source: 'cust', table: 'article', configuration: { custom_name: 'cust_article' } });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    const customization = { root_fields: { namespace: 'shop', prefix: 'p_', suffix: '_s' }, type_names: { prefix: 'Shop_', suffix: '_T' } };
    const r = await md('pg_update_source', { name: 'cust', customization });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const source = (await exported()).sources.find((s: any) => s.name === 'cust');
    expect(source).toMatchObject({ configuration, customization, tables: [{ table: { schema: 'public', name: 'article' } }] });
    const q = await engine.graphql('{ shop { p_cust_article_s(order_by: {id: asc}) { __typename title } } }');
    expect(q.body).toEqual({ data: { shop: { p_cust_article_s: [{ __typename: 'Shop_cust_article_T', title: 'On GraphQL' }] } } });
    const roots = await engine.graphql('{ __schema { mutationType { fields { name } } subscriptionType { fields { name } } } }');
    const names = (root: any): string[] => root.fields.map((f: any) => f.name);
    expect(names((roots.body as any).data.__schema.mutationType)).toContain('shop');
    expect(names((roots.body as any).data.__schema.subscriptionType)).toContain('shop');
    // Only the configuration: the customization stays.
    expect((await md('pg_update_source', { name: 'cust', configuration })).status).toBe(200);
    expect((await exported()).sources.find((s: any) => s.name === 'cust').customization).toEqual(customization);
    const missing = await md('pg_update_source', { name: 'nosuch', customization });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'not-exists', path: '$.args', error: 'source with name "nosuch" does not exist' });
    expect((await md('pg_drop_source', { name: 'cust', cascade: true })).status).toBe(200);
  });
});
