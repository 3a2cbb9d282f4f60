/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `replace_metadata` refuses bad documents instead of replacing everything
 * (issue 12.4): null or missing args, unknown versions, unknown keys at every
 * level, each with the JSON path of the offending key; and keeps accepting
 * every key of v2's version 3 document.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startGraphqlServer } from '../../support/graphql-server.ts';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

describe('replace_metadata refuses bad documents', () => {
  let f: MetadataFixture;
  let before: any;
  beforeAll(async () => {
    f = await startFixture();
    await f.md('pg_track_table', { table: 'authors' });
    await f.md('pg_track_table', { table: 'articles' });
    before = await f.md('export_metadata', {}, { version: 2 });
  });
  afterAll(async () => {
    await f.close();
  });

  async function expectRefused(body: Record<string, unknown>, path: string, error: string | RegExp): Promise<void> {
    const r = await f.engine.metadata<any>({ type: 'replace_metadata', ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body).toMatchObject({ code: 'parse-failed', path });
    expect(r.body.error).toMatch(error);
    const after = await f.md('export_metadata', {}, { version: 2 });
    expect(after.body).toEqual(before.body);
    expect(f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.size).toBe(2);
  }

  it('null, missing and non-object args', async () => {
    await expectRefused({ args: null }, '$.args', 'expected Object, encountered Null');
    await expectRefused({}, '$.args', 'expected Object');
    await expectRefused({ args: [] }, '$.args', 'expected Object, encountered Array');
    await expectRefused({ version: 2, args: { metadata: null } }, '$.args.metadata', /expected Object/);
  });

  it('unknown versions of the document and of the call', async () => {
    await expectRefused({ args: { version: 99 } }, '$.args.version', 'expected 1, 2 or 3, encountered 99');
    await expectRefused({ args: { version: '3', sources: [] } }, '$.args.version', /expected 1, 2 or 3/);
    await expectRefused({ version: 7, args: { version: 3, sources: [] } }, '$.version', 'expected 1 or 2, encountered 7');
    await expectRefused({ version: 2, args: { metadata: { version: 4, sources: [] } } }, '$.args.metadata.version', /expected 1, 2 or 3/);
  });

  it('unknown keys at every level, with the path of the key', async () => {
    const doc = () => structuredClone(before.body.metadata);
    await expectRefused({ args: { version: 3, sourcez: [] } }, '$.args.sourcez', 'unexpected key "sourcez"');
    const t = doc();
    t.sources[0].tables[1].colums = ['id'];
    await expectRefused({ args: t }, '$.args.sources[0].tables[1].colums', 'unexpected key "colums"');
    const s = doc();
    s.sources[0].tabels = [];
    await expectRefused({ args: s }, '$.args.sources[0].tabels', 'unexpected key "tabels"');
    const c = doc();
    c.sources[0].configuration.connection_infos = {};
    await expectRefused({ args: c }, '$.args.sources[0].configuration.connection_infos', /unexpected key/);
    const cu = doc();
    cu.sources[0].customization = { root_fields: { namespace: 'x', prefx: 'y' } };
    await expectRefused({ args: cu }, '$.args.sources[0].customization.root_fields.prefx', /unexpected key/);
    const r = doc();
    r.inherited_roles = [{ role_name: 'a', role_set: ['b'], roleset: [] }];
    await expectRefused({ args: r }, '$.args.inherited_roles[0].roleset', /unexpected key/);
    const fn = doc();
    fn.sources[0].functions = [{ function: 'f', configration: {} }];
    await expectRefused({ args: fn }, '$.args.sources[0].functions[0].configration', /unexpected key/);
    const cf = doc();
    cf.sources[0].tables[0].computed_fields = [{ name: 'x', definition: { function: 'f' }, coment: '' }];
    await expectRefused({ args: cf }, '$.args.sources[0].tables[0].computed_fields[0].coment', /unexpected key/);
    const ac = doc();
    ac.actions = [{ name: 'a', definition: {}, permisions: [] }];
    await expectRefused({ args: ac }, '$.args.actions[0].permisions', /unexpected key/);
    // Version 2 envelope and a version 1 document report paths as sent.
    await expectRefused({ version: 2, args: { metadata: { version: 3, sources: [], extra: 1 } } }, '$.args.metadata.extra', /unexpected key/);
    await expectRefused({ args: { version: 2, tables: [{ table: 'authors', colums: [] }] } }, '$.args.tables[0].colums', /unexpected key/);
  });

  it('inside a bulk, the path names the bulk item', async () => {
    const r = await f.md('bulk', [{ type: 'replace_metadata', args: { version: 3, sourcez: [] } }]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'parse-failed', path: '$.args[0].args.sourcez' });
  });

  it('accepts and round-trips every top-level, source and table key of v2', async () => {
    const doc = structuredClone(before.body.metadata);
    const src = doc.sources[0];
    src.native_queries = [];
    src.logical_models = [];
    src.query_tags = { disabled: true };
    src.health_check = { test: { sql: 'SELECT 1' }, interval: 300 };
    src.configuration.extensions_schema = 'public';
    src.customization = { root_fields: { prefix: 'p_' }, type_names: { prefix: 'P_' } };
    src.tables[0].event_triggers = [
      {
        name: 'et',
        definition: { enable_manual: true, insert: { columns: '*' } },
        retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
        webhook: 'http://example.invalid',
      },
    ];
    src.tables[0].apollo_federation_config = { enable: 'v1' };
    doc.api_limits = { disabled: false, depth_limit: { global: 10, per_role: {} } };
    doc.metrics_config = { analyze_query_variables: true, analyze_response_body: false };
    doc.graphql_schema_introspection = { disabled_for_roles: ['anonymous'] };
    doc.network = { tls_allowlist: [] };
    doc.backend_configs = { dataconnector: {} };
    doc.opentelemetry = { status: 'disabled' };
    // Remote schemas are introspected (issue 16): a real server on loopback.
    const remote = await startGraphqlServer('type Query { hello: String }', { hello: () => 'hi' });
    onTestFinished(() => remote.close());
    doc.remote_schemas = [{ name: 'rs', definition: { url: remote.url }, comment: 'c', permissions: [], remote_relationships: [] }];
    doc.query_collections = [{ name: 'qc', definition: { queries: [] }, comment: null }];
    doc.allowlist = [{ collection: 'qc', scope: { global: true } }];
    doc.cron_triggers = [{ name: 'c', webhook: 'w', schedule: '* * * * *', include_in_metadata: true, payload: {}, retry_conf: {}, headers: [], comment: 'x' }];
    doc.custom_types = { scalars: [], enums: [], objects: [{ name: 'O', fields: [{ name: 'x', type: 'Int' }] }], input_objects: [] };
    const r = await f.md('replace_metadata', doc);
    expect(r.body).toEqual({ message: 'success' });
    expect(await f.exported()).toEqual(doc);
    // Put the original back for the other tests (order of `it`s is fixed).
    expect((await f.md('replace_metadata', before.body.metadata)).status).toBe(200);
    before = await f.md('export_metadata', {}, { version: 2 });
  });
});
