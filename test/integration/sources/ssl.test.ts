/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Postgres sources over SSL (v2's `connection_info.ssl_configuration`, Note
 * [Source SSL] in engine/backends/postgres/ssl.ts) against a real PostgreSQL
 * that takes SSL connections only (test/support/ssl-postgres.ts): each
 * sslmode, the root certificate, the host-name check, client certificates
 * (an encrypted key too), the URL's own sslmode, and bad settings making the
 * source inconsistent with a reason.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startTestServer } from '../../support/http-server.ts';
import { eventually } from '../../support/eventually.ts';
import { wsUrl } from '../../support/ws-client.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { CERT_DATABASE, startSslPostgres, type SslPostgres } from '../../support/ssl-postgres.ts';

let main: TestDatabase;
let server: SslPostgres;
let engine: TestEngine;

const ENV = {
  ca: 'ENGINE_TEST_SSL_CA',
  otherCa: 'ENGINE_TEST_SSL_OTHER_CA',
  cert: 'ENGINE_TEST_SSL_CERT',
  key: 'ENGINE_TEST_SSL_KEY',
  keyEncrypted: 'ENGINE_TEST_SSL_KEY_ENCRYPTED',
  password: 'ENGINE_TEST_SSL_KEY_PASSWORD',
  strangerCert: 'ENGINE_TEST_SSL_STRANGER_CERT',
  strangerKey: 'ENGINE_TEST_SSL_STRANGER_KEY',
  notPem: 'ENGINE_TEST_SSL_NOT_PEM',
  changing: 'ENGINE_TEST_SSL_CHANGING_CA',
  unset: 'ENGINE_TEST_SSL_UNSET',
};

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const fromEnv = (name: string) => ({ from_env: name });

let next = 0;
/** Adds a source on the SSL server and answers pg_add_source's reply; the source is dropped again when added. */
async function tryAdd(url: string, ssl?: Record<string, unknown> | null): Promise<{ status: number; body: any; name: string }> {
  const name = `s${++next}`;
  const r = await md('pg_add_source', {
    name,
    configuration: { connection_info: { database_url: url, ...(ssl === undefined ? {} : { ssl_configuration: ssl }) } },
  });
  return { status: r.status, body: r.body, name };
}

/** Whether the source's own connection runs over SSL (pg_stat_ssl of its backend). */
async function overSsl(source: string): Promise<boolean> {
  const r = await engine.post('/v2/query', { type: 'run_sql', args: { source, sql: 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()' } });
  expect(r.status, r.text).toBe(200);
  return (r.body as any).result[1][0] === 't';
}

/** Adds a source that must work, checks it runs over SSL, and drops it. */
async function expectConnects(url: string, ssl?: Record<string, unknown> | null): Promise<void> {
  const r = await tryAdd(url, ssl);
  expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
  expect(await overSsl(r.name)).toBe(true);
  expect((await md('pg_drop_source', { name: r.name })).status).toBe(200);
}

/** Adds a source that must be refused, and answers its error message. */
async function refusal(url: string, ssl?: Record<string, unknown> | null): Promise<string> {
  const r = await tryAdd(url, ssl);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.code).toBe('invalid-configuration');
  return JSON.stringify(r.body);
}

beforeAll(async () => {
  server = await startSslPostgres();
  const c = server.certs;
  Object.assign(process.env, {
    [ENV.ca]: c.ca,
    [ENV.otherCa]: c.otherCa,
    [ENV.cert]: c.clientCert,
    [ENV.key]: c.clientKey,
    [ENV.keyEncrypted]: c.clientKeyEncrypted,
    [ENV.password]: c.clientKeyPassword,
    [ENV.strangerCert]: c.strangerCert,
    [ENV.strangerKey]: c.strangerKey,
    [ENV.notPem]: 'not a certificate',
    [ENV.changing]: c.ca,
  });
  delete process.env[ENV.unset];
  main = await createTestDatabase('ssl');
  engine = await startTestEngine({ databaseUrl: main.url });
}, 120_000);
afterAll(async () => {
  await engine?.close();
  for (const name of Object.values(ENV)) delete process.env[name];
  await main?.drop();
  await server?.stop();
});

const ip = (db = 'postgres', query?: string): string => server.url('127.0.0.1', db, query);
const localhost = (db = 'postgres', query?: string): string => server.url('localhost', db, query);

describe('sslmode', () => {
  it('disable is refused by a server that takes SSL only', async () => {
    expect(await refusal(ip(), { sslmode: 'disable' })).toMatch(/no pg_hba\.conf entry.*no encryption/);
    // Without SSL no certificate is read: an unset variable is no reason (the console writes such settings).
    expect(await refusal(ip(), { sslmode: 'disable', sslrootcert: fromEnv(ENV.unset) })).toMatch(/no pg_hba\.conf entry.*no encryption/);
  });

  it('require connects over SSL without checking the certificate', async () => {
    await expectConnects(ip(), { sslmode: 'require' });
  });

  it('verify-ca connects with the CA that signed the server certificate, whatever the host name', async () => {
    // The server certificate names localhost only: verify-ca does not look at the name.
    await expectConnects(ip(), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.ca) });
  });

  it('verify-ca is refused with another CA', async () => {
    expect(await refusal(ip(), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.otherCa) })).toMatch(/self-signed certificate in certificate chain/);
  });

  it('require with a root certificate checks the chain as verify-ca (libpq)', async () => {
    expect(await refusal(ip(), { sslmode: 'require', sslrootcert: fromEnv(ENV.otherCa) })).toMatch(/self-signed certificate in certificate chain/);
  });

  it('verify-full checks the host name too', async () => {
    await expectConnects(localhost(), { sslmode: 'verify-full', sslrootcert: fromEnv(ENV.ca) });
    expect(await refusal(ip(), { sslmode: 'verify-full', sslrootcert: fromEnv(ENV.ca) })).toMatch(/does not match certificate's altnames: IP: 127\.0\.0\.1/);
  });
});

describe('client certificates', () => {
  it('a database asking for one refuses a connection without it', async () => {
    expect(await refusal(ip(CERT_DATABASE), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.ca) })).toMatch(/connection requires a valid client certificate/);
  });

  it('accepts the certificate its CA signed', async () => {
    const ssl = { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.ca), sslcert: fromEnv(ENV.cert), sslkey: fromEnv(ENV.key) };
    const r = await tryAdd(ip(CERT_DATABASE), ssl);
    expect(r.body).toEqual({ message: 'success' });
    expect(await overSsl(r.name)).toBe(true);
    // Kept as given: the variables' names, never their PEM.
    const src = (await md('export_metadata', {})).body.sources.find((x: any) => x.name === r.name);
    expect(src.configuration).toEqual({ connection_info: { database_url: ip(CERT_DATABASE), ssl_configuration: ssl } });
    expect((await md('pg_drop_source', { name: r.name })).status).toBe(200);
  });

  it('opens an encrypted key with sslpassword', async () => {
    await expectConnects(ip(CERT_DATABASE), {
      sslmode: 'require',
      sslcert: fromEnv(ENV.cert),
      sslkey: fromEnv(ENV.keyEncrypted),
      sslpassword: fromEnv(ENV.password),
    });
  });

  it('refuses a certificate another CA signed', async () => {
    expect(await refusal(ip(CERT_DATABASE), { sslmode: 'require', sslcert: fromEnv(ENV.strangerCert), sslkey: fromEnv(ENV.strangerKey) })).toMatch(
      /alert unknown ca/,
    );
  });
});

describe('the database URL', () => {
  it("its sslmode=require means libpq's require (no certificate check), not node-postgres's verify-full", async () => {
    await expectConnects(ip('postgres', 'sslmode=require'));
    await expectConnects(ip('postgres', 'sslmode=require'), null);
  });

  it('its sslrootcert is a file, replaced by the one of ssl_configuration', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'engine-ssl-url-'));
    try {
      await writeFile(path.join(dir, 'ca.crt'), server.certs.ca);
      await writeFile(path.join(dir, 'other.crt'), server.certs.otherCa);
      await expectConnects(ip('postgres', `sslmode=verify-ca&sslrootcert=${encodeURIComponent(path.join(dir, 'ca.crt'))}`));
      const other = `sslmode=verify-ca&sslrootcert=${encodeURIComponent(path.join(dir, 'other.crt'))}`;
      expect(await refusal(ip('postgres', other))).toMatch(/self-signed certificate in certificate chain/);
      await expectConnects(ip('postgres', other), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.ca) });
      const missing = path.join(dir, 'missing.crt');
      expect(await refusal(ip('postgres', `sslmode=verify-ca&sslrootcert=${encodeURIComponent(missing)}`))).toContain(
        `could not read the database URL's sslrootcert file \\"${missing}\\"`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the stricter of its sslmode and ssl_configuration holds (v2: Max)', async () => {
    // disable in the URL, require in the configuration: require.
    await expectConnects(ip('postgres', 'sslmode=disable'), { sslmode: 'require' });
    // verify-full in the URL, verify-ca in the configuration: verify-full, whose host-name check fails on 127.0.0.1.
    expect(await refusal(ip('postgres', 'sslmode=verify-full'), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.ca) })).toMatch(
      /does not match certificate's altnames/,
    );
  });
});

describe('bad settings', () => {
  it('are refused with a reason, and the engine keeps serving', async () => {
    expect(await refusal(ip(), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.unset) })).toContain(
      `environment variable \\"${ENV.unset}\\" of ssl_configuration.sslrootcert is not set`,
    );
    expect(await refusal(ip(), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.notPem) })).toContain(
      `ssl_configuration.sslrootcert (environment variable \\"${ENV.notPem}\\") is not a PEM certificate`,
    );
    expect(await refusal(ip(), { sslmode: 'verify-full' })).toContain('sslmode \\"verify-full\\" needs a root certificate');
    expect(await refusal(ip(), { sslmode: 'require', sslcert: fromEnv(ENV.cert), sslkey: fromEnv(ENV.keyEncrypted) })).toContain(
      'is encrypted and no sslpassword was given',
    );
    expect(await refusal(ip(), { sslmode: 'require', sslcert: fromEnv(ENV.cert), sslkey: fromEnv(ENV.strangerKey) })).toContain(
      `ssl_configuration.sslkey (environment variable \\"${ENV.strangerKey}\\") is not the key of ssl_configuration.sslcert`,
    );
    expect(await refusal(ip(), { sslmode: 'require', sslcert: fromEnv(ENV.cert) })).toContain('a client certificate (sslcert) needs its key (sslkey)');
    expect(await refusal(ip('postgres', 'sslmode=sometimes'))).toContain('invalid sslmode value in the database URL: \\"sometimes\\"');
    const shape = await tryAdd(ip(), { sslmode: 'always' });
    expect(shape.status).toBe(400);
    expect(shape.body.code).toBe('parse-failed');
    expect((await engine.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'query_root' } });
  });

  it('kept by replace_metadata, make the source inconsistent with the reason', async () => {
    const doc = (await md('export_metadata', {})).body;
    const bad = {
      name: 'broken',
      kind: 'postgres',
      tables: [],
      configuration: { connection_info: { database_url: ip(), ssl_configuration: { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.unset) } } },
    };
    const r = await md('replace_metadata', { allow_inconsistent_metadata: true, metadata: { ...doc, sources: [...doc.sources, bad] } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(JSON.stringify(inc.inconsistent_objects)).toContain(`environment variable \\"${ENV.unset}\\" of ssl_configuration.sslrootcert is not set`);
    expect((await md('replace_metadata', { metadata: doc })).status).toBe(200);
  });
});

describe('pools', () => {
  it('a changed certificate opens a new pool (the pool key carries the TLS setting)', async () => {
    const r = await tryAdd(ip(), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.changing) });
    expect(r.body).toEqual({ message: 'success' });
    try {
      process.env[ENV.changing] = server.certs.otherCa;
      // Same URL and pool settings: only the CA changed. Reusing the old pool would keep the source consistent.
      const reload = await md('reload_metadata', {});
      expect(reload.status).toBe(200);
      expect(reload.body.is_consistent).toBe(false);
      expect(JSON.stringify((await md('get_inconsistent_metadata', {})).body.inconsistent_objects)).toMatch(/certificate/);
    } finally {
      process.env[ENV.changing] = server.certs.ca;
    }
    const back = await md('reload_metadata', {});
    expect(back.body.is_consistent).toBe(true);
    expect(await overSsl(r.name)).toBe(true);
    expect((await md('pg_drop_source', { name: r.name })).status).toBe(200);
  });
});

/** Waits until the SSL server has a backend whose statement is like `pattern` (a LISTEN) over SSL. */
async function listeningOverSsl(pattern: string, what: string): Promise<void> {
  const count = async (): Promise<number> =>
    Number(
      (
        await server.sql(
          'postgres',
          `SELECT count(*) AS n FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid WHERE a.query LIKE '${pattern}' AND s.ssl`,
        )
      ).rows[0].n,
    );
  await eventually(async () => expect(await count()).toBeGreaterThan(0), { what });
}

describe('connections of their own', () => {
  it("a live query's change feed listens over the source's SSL settings, and a change reaches the client", async () => {
    await server.sql('postgres', 'DROP TABLE IF EXISTS live_item; CREATE TABLE live_item (id int PRIMARY KEY, v int); INSERT INTO live_item VALUES (1, 1)');
    const r = await tryAdd(ip(), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.ca) });
    expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
    expect((await md('pg_track_table', { source: r.name, table: 'live_item' })).status).toBe(200);
    // A read's answer taken as bytes from the TLS socket (Note [Answer bytes]: the parser is attached after the upgrade).
    expect((await engine.graphql('{ live_item { id v } }')).body).toEqual({ data: { live_item: [{ id: 1, v: 1 }] } });
    const seen: unknown[] = [];
    const client = createClient({ url: wsUrl(engine.url), webSocketImpl: WebSocket, retryAttempts: 0 });
    const stop = client.subscribe({ query: 'subscription { live_item { id v } }' }, { next: (x) => void seen.push(x), error: () => {}, complete: () => {} });
    try {
      await eventually(() => expect(seen).toContainEqual({ data: { live_item: [{ id: 1, v: 1 }] } }), { what: 'the first answer' });
      // The feed's LISTEN connection is on the SSL-only server, so it runs over SSL (without the source's settings it could not connect).
      await listeningOverSsl('LISTEN engine_live_change%', 'a LISTEN connection over SSL');
      await server.sql('postgres', 'UPDATE live_item SET v = 2 WHERE id = 1');
      await eventually(() => expect(seen).toContainEqual({ data: { live_item: [{ id: 1, v: 2 }] } }), { what: 'the change' });
    } finally {
      stop();
      await client.dispose();
      await md('pg_drop_source', { name: r.name });
    }
  });

  it("the event log's LISTEN connection uses them too, and an insert is delivered", async () => {
    await server.sql('postgres', 'DROP TABLE IF EXISTS evt_item; CREATE TABLE evt_item (id int PRIMARY KEY, v int)');
    const hook = await startTestServer((_req, _body, res) => void res.writeHead(200).end('{}'));
    const r = await tryAdd(ip(), { sslmode: 'verify-ca', sslrootcert: fromEnv(ENV.ca) });
    try {
      expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
      expect((await md('pg_track_table', { source: r.name, table: 'evt_item' })).status).toBe(200);
      const created = await md('pg_create_event_trigger', {
        source: r.name,
        name: 'evt_item_ins',
        table: 'evt_item',
        insert: { columns: '*' },
        webhook: `${hook.url}/hook`,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      await listeningOverSsl('LISTEN engine_events%', "the event log's LISTEN connection over SSL");
      await server.sql('postgres', 'INSERT INTO evt_item VALUES (1, 7)');
      await eventually(() => expect(hook.requests.map((q) => JSON.parse(q.body).event?.data?.new)).toContainEqual({ id: 1, v: 7 }), {
        what: 'the event at the webhook',
      });
    } finally {
      await md('pg_drop_source', { name: r.name, cascade: true });
      await hook.close();
    }
  });
});

describe('the metadata database', () => {
  it("its URL's sslmode=require is libpq's (no certificate check), for the pool and the LISTEN connection", async () => {
    await server.sql('postgres', 'DROP SCHEMA IF EXISTS engine_metadata CASCADE');
    // node-postgres alone reads sslmode=require as verify-full, which the test CA (unknown to node) fails.
    const e = await startTestEngine({ databaseUrl: main.url, metadataDatabaseUrl: ip('postgres', 'sslmode=require') });
    try {
      const r = await e.metadata({ type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'ssl_meta_probe' } } });
      // The call reached the metadata database (the table does not exist: a metadata error, not a connection error).
      expect(r.status, r.text).toBe(400);
      expect(JSON.stringify(r.body)).toContain('ssl_meta_probe');
      await listeningOverSsl('LISTEN%', 'the metadata LISTEN connection over SSL');
    } finally {
      await e.close();
    }
  });
});
