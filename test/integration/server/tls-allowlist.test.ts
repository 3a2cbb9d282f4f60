/**
 * v2's insecure TLS allow-list (`add_host_to_tls_allowlist`, `network.tls_allowlist`) as a user
 * sees it, against a real HTTPS server with a self-signed certificate (made by openssl): a remote
 * schema, an action handler and an event webhook on it are refused until the host (and port) is
 * on the list, answered while it is, and refused again once it is dropped, even over connections
 * kept alive (Note [TLS allow-list] in engine/tls-allowlist.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSchema, graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { eventually } from '../../support/eventually.ts';

let dir: string;
let server: Server;
let port: number;
let db: TestDatabase;
let e: TestEngine;
const delivered: unknown[] = [];

const schema = buildSchema('type Query { hello: String }');

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'engine-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  server = createServer({ key: await readFile(path.join(dir, 'key.pem')), cert: await readFile(path.join(dir, 'cert.pem')) }, (req, res) => {
    void (async () => {
      const b = await body(req);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/graphql') {
        res.end(JSON.stringify(await graphql({ schema, source: String(b['query']), rootValue: { hello: 'over self-signed TLS' } })));
      } else if (req.url === '/auth') {
        const forwarded = (b['headers'] ?? {}) as Record<string, string>;
        if (forwarded['authorization'] === 'reader') res.end(JSON.stringify({ 'x-engine-role': 'reader' }));
        else {
          res.statusCode = 401;
          res.end('{}');
        }
      } else if (req.url === '/handler') {
        res.end(JSON.stringify({ greeting: `hi ${String((b['input'] as Record<string, unknown>)['name'])}` }));
      } else {
        delivered.push(b);
        res.end('{}');
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;

  db = await createTestDatabase('tlsallow');
  await db.sql('CREATE TABLE note (id int PRIMARY KEY, body text NOT NULL)');
  e = await startTestEngine({ databaseUrl: db.url });
  const setup = await e.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'note' } },
      { type: 'set_custom_types', args: { objects: [{ name: 'Greeting', fields: [{ name: 'greeting', type: 'String!' }] }] } },
      {
        type: 'create_action',
        args: {
          name: 'greet',
          definition: { kind: 'synchronous', type: 'query', arguments: [{ name: 'name', type: 'String!' }], output_type: 'Greeting', handler: url('/handler') },
        },
      },
      {
        type: 'pg_create_event_trigger',
        args: { name: 'note_added', table: 'note', webhook: url('/hook'), insert: { columns: '*' }, retry_conf: { num_retries: 0 } },
      },
    ],
  });
  expect(setup.status, setup.text).toBe(200);
});

afterAll(async () => {
  await e?.close();
  await db?.drop();
  await new Promise((r) => server?.close(r));
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function url(p: string): string {
  return `https://localhost:${port}${p}`;
}

const allow = (args: unknown): Promise<{ status: number; body: unknown }> => e.metadata({ type: 'add_host_to_tls_allowlist', args });
const drop = (args: unknown): Promise<{ status: number; body: unknown }> => e.metadata({ type: 'drop_host_from_tls_allowlist', args });
const addRemote = (): Promise<{ status: number; body: unknown; text: string }> =>
  e.metadata({ type: 'add_remote_schema', args: { name: 'selfsigned', definition: { url: url('/graphql'), timeout_seconds: 10 } } });

describe('the insecure TLS allow-list', () => {
  it('refuses a self-signed certificate until its host and port are on the list', async () => {
    const refused = await addRemote();
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/certificate/i);
    const action = await e.graphql('{ greet(name: "Ann") { greeting } }');
    expect(JSON.stringify(action.body)).toMatch(/errors/);
    // Another port of the host is not this one.
    expect((await allow({ host: 'localhost', suffix: String(port + 1), permissions: ['self-signed'] })).status).toBe(200);
    expect((await addRemote()).status).toBe(400);

    expect((await allow({ host: 'localhost', suffix: String(port), permissions: ['self-signed'] })).body).toEqual({ message: 'success' });
    expect((await addRemote()).body).toEqual({ message: 'success' });
    expect((await e.graphql('{ hello }')).body).toEqual({ data: { hello: 'over self-signed TLS' } });
    expect((await e.graphql('{ greet(name: "Ann") { greeting } }')).body).toEqual({ data: { greet: { greeting: 'hi Ann' } } });
    await db.sql(`INSERT INTO note VALUES (1, 'first')`);
    await eventually(() => delivered.length === 1, { what: 'the event delivered to the self-signed webhook' });
    expect(delivered[0]).toMatchObject({ event: { op: 'INSERT', data: { new: { id: 1, body: 'first' } } }, trigger: { name: 'note_added' } });

    const exported = await e.metadata<Record<string, unknown>>({ type: 'export_metadata', args: {} });
    expect(exported.body['network']).toEqual({
      tls_allowlist: [
        { host: 'localhost', suffix: String(port + 1), permissions: ['self-signed'] },
        { host: 'localhost', suffix: String(port), permissions: ['self-signed'] },
      ],
    });
  });

  it('refuses again once the host is dropped, over connections kept alive too', async () => {
    expect((await drop({ host: 'localhost', suffix: String(port) })).body).toEqual({ message: 'success' });
    const remote = await e.graphql('{ hello }');
    expect(remote.body).toMatchObject({ errors: [{ extensions: { code: 'remote-schema-error' } }] });
    const action = await e.graphql('{ greet(name: "Bo") { greeting } }');
    expect(JSON.stringify(action.body)).not.toContain('hi Bo');
    // Listed by host only (the string form), every port of it is allowed.
    expect((await allow('localhost')).status).toBe(200);
    expect((await e.graphql('{ greet(name: "Bo") { greeting } }')).body).toEqual({ data: { greet: { greeting: 'hi Bo' } } });
    expect((await drop({ host: 'localhost' })).status).toBe(200);
  });

  it('takes the list with the document: a remote schema and the host it needs in one replace_metadata', async () => {
    const doc = (await e.metadata<Record<string, unknown>>({ type: 'export_metadata', args: {} })).body;
    expect((await e.metadata({ type: 'remove_remote_schema', args: { name: 'selfsigned' } })).status).toBe(200);
    const next = {
      ...doc,
      network: { tls_allowlist: [{ host: 'localhost', suffix: String(port) }] },
      remote_schemas: [{ name: 'selfsigned', definition: { url: url('/graphql'), timeout_seconds: 10 } }],
    };
    const replaced = await e.metadata({ type: 'replace_metadata', args: next });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect((await e.graphql('{ hello }')).body).toEqual({ data: { hello: 'over self-signed TLS' } });
    expect((await drop({ host: 'localhost', suffix: String(port) })).status).toBe(200);
  });

  it('covers the authentication webhook too', async () => {
    const secured = await startTestEngine({ databaseUrl: db.url, adminSecret: 'tls-secret', authHook: url('/auth'), authHookMode: 'POST' });
    try {
      const admin = { 'x-engine-admin-secret': 'tls-secret' };
      const perm = await secured.metadata(
        { type: 'pg_create_select_permission', args: { table: 'note', role: 'reader', permission: { columns: ['id'], filter: {} } } },
        admin,
      );
      expect(perm.status, perm.text).toBe(200);
      const asReader = { authorization: 'reader' };
      // v2 answers /v1/graphql errors with 200; the error says the webhook did not answer.
      const refused = await secured.graphql('{ note { id } }', undefined, asReader);
      expect(refused.body).toMatchObject({ errors: [{ message: 'authentication webhook did not answer' }] });
      expect((await secured.metadata({ type: 'add_host_to_tls_allowlist', args: { host: 'localhost', suffix: String(port) } }, admin)).status).toBe(200);
      expect((await secured.graphql('{ note(order_by: {id: asc}) { id } }', undefined, asReader)).body).toEqual({ data: { note: [{ id: 1 }] } });
      expect((await secured.metadata({ type: 'drop_host_from_tls_allowlist', args: { host: 'localhost', suffix: String(port) } }, admin)).status).toBe(200);
      // The suite's first engine shares this metadata and drops the host when the change reaches it
      // (within a second); the process serves both engines, so the call is refused once both have.
      await eventually(
        async () => {
          expect((await secured.graphql('{ note { id } }', undefined, asReader)).body).toMatchObject({
            errors: [{ message: 'authentication webhook did not answer' }],
          });
        },
        { what: 'the auth webhook refused again after the host was dropped' },
      );
    } finally {
      await secured.close();
    }
  });

  it('answers bad calls as v2 does and changes nothing', async () => {
    expect((await allow({ host: 'dup.example', suffix: '8443' })).status).toBe(200);
    expect((await allow('dup.example')).status).toBe(200);
    const before = await e.metadata({ type: 'export_metadata', args: {} });
    expect(await allow({ host: '' })).toMatchObject({ status: 400, body: { code: 'bad-request', error: 'key "host" cannot be empty' } });
    expect(await allow({ host: 'dup.example', suffix: '8443' })).toMatchObject({
      status: 400,
      body: { code: 'already-exists', error: 'the host "dup.example" with suffix "8443" already exists in the allowlist' },
    });
    expect(await allow('dup.example')).toMatchObject({
      status: 400,
      body: { code: 'already-exists', error: 'the host "dup.example" already exists in the allowlist' },
    });
    expect(await drop({ host: 'elsewhere' })).toMatchObject({
      status: 400,
      body: { code: 'not-exists', error: `the host "elsewhere" isn't present in the allowlist` },
    });
    expect(await allow({ host: 'x', permissions: ['everything'] })).toMatchObject({ status: 400, body: { code: 'parse-failed' } });
    expect(await allow({ host: 'x', port: 1 })).toMatchObject({ status: 400, body: { code: 'parse-failed' } });
    expect((await e.metadata({ type: 'export_metadata', args: {} })).body).toEqual(before.body);
  });
});
