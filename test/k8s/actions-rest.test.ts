/**
 * The operator's kinds for actions, custom types, query collections (with the allow-list) and REST
 * endpoints, on a REAL kube-apiserver + etcd and a real engine started with --enable-allowlist and
 * an action handler URL in its environment. The handler is a real HTTP server on loopback.
 * Its own control plane; the tests run in order and build on each other's state.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, k8sSkipReason, resource, selectPermission, startOperatorEnv, type OperatorEnv } from './harness.ts';

const skipReason = k8sSkipReason();

/** What the action handler received. */
interface HandlerCall {
  readonly path: string;
  readonly body: { action?: { name?: string }; input?: Record<string, unknown>; session_variables?: Record<string, string> };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

describe.skipIf(skipReason !== null)('actions, custom types, query collections and REST endpoints on a real kube-apiserver', { timeout: 90_000 }, () => {
  let env: OperatorEnv;
  let handler: Server;
  const calls: HandlerCall[] = [];
  const base = (): string => `http://127.0.0.1:${env.enginePort}`;
  const graphql = async (
    query: string,
    role?: string,
  ): Promise<{ data?: Record<string, unknown>; errors?: { message: string; extensions?: { code?: string } }[] }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-engine-admin-secret': ADMIN_SECRET };
    if (role !== undefined) headers['x-engine-role'] = role;
    const res = await fetch(`${base()}/v1/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
    expect(res.status).toBe(200);
    return (await res.json()) as never;
  };
  const rest = async (path: string, role?: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const headers: Record<string, string> = { 'x-engine-admin-secret': ADMIN_SECRET };
    if (role !== undefined) headers['x-engine-role'] = role;
    const res = await fetch(`${base()}/api/rest/${path}`, { headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const exported = async (): Promise<{
    actions?: { name: string; permissions?: { role: string }[] }[];
    custom_types?: Record<string, { name: string }[]>;
    query_collections?: { name: string }[];
    allowlist?: { collection: string; scope?: unknown }[];
    rest_endpoints?: { name: string }[];
  }> => (await env.client.exportMetadata()).metadata as never;
  const describeOf = (plural: string, name: string): string => env.cp.kubectl(['describe', `${plural}.graphql.engine.dev`, name]);
  const del = (plural: string, name: string): string => env.cp.kubectl(['delete', `${plural}.graphql.engine.dev`, name, '--wait=true', '--timeout=30s']);

  beforeAll(async () => {
    handler = createServer((req, res) => {
      void readBody(req).then((text) => {
        const body = JSON.parse(text) as HandlerCall['body'];
        calls.push({ path: req.url ?? '', body });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ text: `hello ${String(body.input?.['name'])}`, length: String(body.input?.['name'] ?? '').length }));
      });
    });
    await new Promise<void>((r) => handler.listen(0, '127.0.0.1', r));
    const handlerBase = `http://127.0.0.1:${(handler.address() as AddressInfo).port}`;
    env = await startOperatorEnv(
      'k8s_act',
      `CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL);
       INSERT INTO article (title) VALUES ('first'), ('second');`,
      {},
      { args: ['--enable-allowlist'], env: { ACTION_BASE_URL: handlerBase } },
    );
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        resource('Engine', 'main', { url: base(), adminSecretRef: { name: 'engine-admin' } }),
        resource('TrackedTable', 'article', { table: 'article' }),
        selectPermission('article', 'user', ['id', 'title']),
      ],
    });
    await env.readyWith('permissions', 'article-user-select', 'True', 'Applied');
  }, 180_000);

  afterAll(async () => {
    await env?.stop();
    await new Promise<void>((r) => (handler === undefined ? r() : handler.close(() => r())));
  });

  it('refuses at kubectl apply --dry-run=server what the engine would refuse', () => {
    const action = (name: string, spec: Record<string, unknown>): Record<string, unknown> => resource('Action', name, spec);
    expect(env.refused(action('send-mail', { definition: { handler: 'http://x', output_type: 'String' } }))).toContain('must be a GraphQL name');
    expect(env.refused(action('ok', { name: 'send_mail', definition: { handler: 'http://x', output_type: 'String' } }))).toBe('accepted');
    expect(env.refused(action('no-output', { definition: { handler: 'http://x' } }))).toContain('spec.definition.output_type: Required value');
    expect(env.refused(resource('CustomTypes', 'empty', {}))).toContain('declare at least one type');
    expect(env.refused(resource('CustomTypes', 'bad-name', { scalars: [{ name: 'not-a-name' }] }))).toContain('spec.scalars[0].name');
    expect(env.refused(resource('QueryCollection', 'bad-scope', { queries: [], allowlist: { scope: { global: false } } }))).toContain(
      'a scope that is not global lists roles',
    );
    expect(
      env.refused(resource('RestEndpoint', 'bad-method', { url: 'x', methods: ['get'], definition: { query: { collection_name: 'c', query_name: 'q' } } })),
    ).toContain('spec.methods[0]');
    // An engine the operator runs gets a handler's base URL through spec.deployment.env, not the admin secret.
    const deployed = (env: unknown[]): Record<string, unknown> =>
      resource('Engine', 'deployed', { deployment: { version: '1', databaseUrlSecretRef: { name: 'db' }, env } });
    expect(env.refused(deployed([{ name: 'ACTION_BASE_URL', value: 'http://actions' }]))).toBe('accepted');
    expect(env.refused(deployed([{ name: 'ENGINE_GRAPHQL_ADMIN_SECRET', value: 'x' }]))).toContain('come from databaseUrlSecretRef and adminSecretRef');
    expect(env.refused(deployed([{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }]))).toContain('value or valueFrom, not both');
    expect(env.refused(resource('RestEndpoint', 'no-query', { url: 'x', methods: ['GET'], definition: { query: { collection_name: 'c' } } }))).toContain(
      'spec.definition.query.query_name: Required value',
    );
  });

  it('applies CustomTypes and an Action whose handler answers through the engine', async () => {
    const t0 = Date.now();
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        resource('CustomTypes', 'greetings', {
          objects: [
            {
              name: 'Greeting',
              fields: [
                { name: 'text', type: 'String!' },
                { name: 'length', type: 'Int!' },
              ],
            },
          ],
        }),
        resource('Action', 'hello', {
          definition: {
            kind: 'synchronous',
            type: 'query',
            handler: '{{ACTION_BASE_URL}}/hello',
            arguments: [{ name: 'name', type: 'String!' }],
            output_type: 'Greeting',
          },
          permissions: [{ role: 'user' }],
        }),
      ],
    });
    await env.readyWith('customtypes', 'greetings', 'True', 'Applied');
    await env.readyWith('actions', 'hello', 'True', 'Applied');
    const doc = await exported();
    expect(doc.actions?.map((a) => [a.name, a.permissions?.map((p) => p.role)])).toEqual([['hello', ['user']]]);
    expect(doc.custom_types?.['objects']?.map((t) => t.name)).toEqual(['Greeting']);

    const answer = await graphql('{ hello(name: "k8s") { text length } }');
    console.log(`[k8s] CustomTypes + Action applied -> Ready and answered through the handler after ${Date.now() - t0} ms`);
    expect(answer).toEqual({ data: { hello: { text: 'hello k8s', length: 3 } } });
    expect(calls.at(-1)).toMatchObject({ path: '/hello', body: { action: { name: 'hello' }, input: { name: 'k8s' } } });
    expect(env.cp.kubectl(['get', 'actions.graphql.engine.dev'])).toMatch(/hello\s+query\s+Greeting\s+True\s+Applied/);
  });

  it('reports a handler env var the engine lacks and a type defined twice on the resources that cause them', async () => {
    env.cp.apply(
      resource('Action', 'broken-env', {
        name: 'broken_env',
        definition: { type: 'query', handler: '{{MISSING_HANDLER_URL}}/x', output_type: 'Greeting' },
      }),
    );
    const broken = await env.readyWith('actions', 'broken-env', 'False', 'InconsistentMetadata');
    expect(broken.message).toContain('MISSING_HANDLER_URL');
    expect(env.cond('actions', 'broken-env', 'Stalled')?.status).toBe('True');
    expect(describeOf('actions', 'broken-env')).toMatch(/Reason:\s+InconsistentMetadata[\s\S]*MISSING_HANDLER_URL/);

    env.cp.apply(resource('CustomTypes', 'other-team', { objects: [{ name: 'Greeting', fields: [{ name: 'other', type: 'String' }] }] }));
    const conflict = await env.readyWith('customtypes', 'other-team', 'False', 'Conflict');
    expect(conflict.message).toBe('CustomTypes/default/greetings already declares custom_type/Greeting');
    // Not overwritten: the older resource's Greeting is still what the action answers with.
    expect((await exported()).custom_types?.['objects']).toEqual([
      {
        name: 'Greeting',
        fields: [
          { name: 'text', type: 'String!' },
          { name: 'length', type: 'Int!' },
        ],
      },
    ]);
    expect(await graphql('{ hello(name: "again") { text } }')).toEqual({ data: { hello: { text: 'hello again' } } });
    expect(env.cond('customtypes', 'greetings')?.status).toBe('True');
    expect(env.cond('actions', 'hello')?.status).toBe('True');

    del('customtypes', 'other-team');
    del('actions', 'broken-env');
    await env.until('broken_env removed from the metadata', async () => !(await exported()).actions?.some((a) => a.name === 'broken_env'));
  });

  it('serves a REST endpoint from a QueryCollection and enforces its allow-list scope', async () => {
    const t0 = Date.now();
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        resource('QueryCollection', 'reads', {
          queries: [
            { name: 'article_by_id', query: 'query article_by_id($id: Int!) { article_by_pk(id: $id) { id title } }' },
            { name: 'all_titles', query: 'query all_titles { article(order_by: {id: asc}) { title } }' },
          ],
          allowlist: { scope: { global: false, roles: ['user'] } },
        }),
        resource('RestEndpoint', 'article-by-id', {
          url: 'articles/:id',
          methods: ['GET'],
          definition: { query: { collection_name: 'reads', query_name: 'article_by_id' } },
        }),
      ],
    });
    await env.readyWith('querycollections', 'reads', 'True', 'Applied');
    await env.readyWith('restendpoints', 'article-by-id', 'True', 'Applied');
    const doc = await exported();
    expect(doc.allowlist).toEqual([{ collection: 'reads', scope: { global: false, roles: ['user'] } }]);
    expect(doc.rest_endpoints?.map((e) => e.name)).toEqual(['article-by-id']);

    expect(await rest('articles/2')).toEqual({ status: 200, body: { article_by_pk: { id: 2, title: 'second' } } });
    console.log(`[k8s] QueryCollection + RestEndpoint applied -> Ready and the endpoint answering after ${Date.now() - t0} ms`);
    expect(await rest('articles/1', 'user')).toEqual({ status: 200, body: { article_by_pk: { id: 1, title: 'first' } } });
    // The allow-list admits the collection's query for role user, and nothing else.
    expect(await graphql('query all_titles { article(order_by: {id: asc}) { title } }', 'user')).toEqual({
      data: { article: [{ title: 'first' }, { title: 'second' }] },
    });
    const other = await graphql('query { article { id } }', 'user');
    expect(other.errors?.[0]).toMatchObject({ message: 'query is not allowed', extensions: { code: 'validation-failed' } });
    // The action's query is not allow-listed either, for user; admin is never restricted.
    expect((await graphql('{ hello(name: "u") { text } }', 'user')).errors?.[0]?.message).toBe('query is not allowed');
    expect(env.cp.kubectl(['get', 'restendpoints.graphql.engine.dev'])).toMatch(/article-by-id\s+articles\/:id\s+reads\s+True\s+Applied/);

    // Narrowing the scope to another role is applied as a change of the allow-list entry.
    env.cp.apply(
      resource('QueryCollection', 'reads', {
        queries: [
          { name: 'article_by_id', query: 'query article_by_id($id: Int!) { article_by_pk(id: $id) { id title } }' },
          { name: 'all_titles', query: 'query all_titles { article(order_by: {id: asc}) { title } }' },
        ],
        allowlist: { scope: { global: false, roles: ['editor'] } },
      }),
    );
    await env.until(
      'all_titles refused for user',
      async () => (await graphql('query all_titles { article(order_by: {id: asc}) { title } }', 'user')).errors !== undefined,
    );
  });

  it('reports a missing collection as DependencyMissing and a query the collection lacks with the engine reason', async () => {
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        resource('RestEndpoint', 'no-collection', { url: 'nothing', methods: ['GET'], definition: { query: { collection_name: 'nope', query_name: 'q' } } }),
        resource('RestEndpoint', 'no-query', { url: 'ghost', methods: ['GET'], definition: { query: { collection_name: 'reads', query_name: 'ghost' } } }),
      ],
    });
    const missing = await env.readyWith('restendpoints', 'no-collection', 'False', 'DependencyMissing');
    expect(missing.message).toBe("query collection nope is not in the engine's metadata");
    // It waits (Reconciling), it is not stalled: applying the collection later fixes it.
    expect(env.cond('restendpoints', 'no-collection', 'Reconciling')?.status).toBe('True');
    const noQuery = await env.readyWith('restendpoints', 'no-query', 'False', 'InconsistentMetadata');
    expect(noQuery.message).toContain('query "ghost" is not in collection "reads"');
    expect(describeOf('restendpoints', 'no-query')).toMatch(/InconsistentMetadata[\s\S]*ghost/);
    expect(env.cond('restendpoints', 'article-by-id')?.status).toBe('True');
    expect((await rest('ghost')).status).toBe(404);

    // The missing collection arrives: the endpoint is applied without touching it.
    env.cp.apply(resource('QueryCollection', 'nope', { queries: [{ name: 'q', query: 'query q { article(order_by: {id: asc}) { id } }' }] }));
    await env.readyWith('restendpoints', 'no-collection', 'True', 'Applied');
    expect(await rest('nothing')).toEqual({ status: 200, body: { article: [{ id: 1 }, { id: 2 }] } });
  });

  it('removes what deleted resources declared from the metadata', async () => {
    const t0 = Date.now();
    del('restendpoints', 'article-by-id');
    await env.until('the endpoint gone', async () => (await rest('articles/1')).status === 404);
    console.log(`[k8s] RestEndpoint deleted -> 404 after ${Date.now() - t0} ms`);
    expect((await exported()).rest_endpoints?.map((e) => e.name).sort()).toEqual(['no-collection', 'no-query']);

    // Deleting a collection an endpoint still reads: the collection and its allow-list entry go,
    // the endpoint waits for it again.
    del('querycollections', 'reads');
    await env.readyWith('restendpoints', 'no-query', 'False', 'DependencyMissing');
    const doc = await exported();
    expect(doc.query_collections?.map((c) => c.name)).toEqual(['nope']);
    expect(doc.allowlist ?? []).toEqual([]);

    del('actions', 'hello');
    del('customtypes', 'greetings');
    await env.until('the action and its types gone', async () => {
      const d = await exported();
      return (d.actions ?? []).length === 0 && Object.values(d.custom_types ?? {}).every((l) => l.length === 0);
    });
    expect((await graphql('{ hello(name: "x") { text } }')).errors?.[0]?.message).toMatch(/hello/);
    for (const [plural, name] of [
      ['restendpoints', 'no-query'],
      ['restendpoints', 'no-collection'],
      ['querycollections', 'nope'],
    ] as const)
      del(plural, name);
    await env.until('every collection and endpoint gone', async () => {
      const d = await exported();
      return (d.rest_endpoints ?? []).length === 0 && (d.query_collections ?? []).length === 0;
    });
    await env.readyWith('engines', 'main', 'True', 'Applied');
    // The rest of the engine's metadata stays as declared.
    expect(env.cond('permissions', 'article-user-select')?.status).toBe('True');
  });
});
