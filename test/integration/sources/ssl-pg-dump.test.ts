/**
 * `POST /v1alpha1/pg_dump` of a postgres source connected with v2's `ssl_configuration` (Note
 * [Source SSL] in engine/backends/postgres/ssl.ts): pg_dump (libpq) gets the same setting as the
 * engine's pool, here a client certificate with an encrypted key on a database that asks for one.
 * pg_dump refuses a server newer than itself, so the SSL server is the system's PostgreSQL
 * (test/support/ssl-postgres.ts with `system`), as in test/integration/cli/migrate-from-server.test.ts.
 */
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { systemPostgres } from '../../support/postgres-debian.ts';
import { CERT_DATABASE, startSslPostgres, type SslPostgres } from '../../support/ssl-postgres.ts';

const ENV = { ca: 'ENGINE_TEST_DUMP_CA', cert: 'ENGINE_TEST_DUMP_CERT', key: 'ENGINE_TEST_DUMP_KEY', password: 'ENGINE_TEST_DUMP_KEY_PASSWORD' };

const system = systemPostgres();
if (system === null) {
  if (process.env['CI'] === 'true') throw new Error("CI=true but no system PostgreSQL: .ci/run should have installed Debian's postgresql");
  console.warn('[skip] pg_dump over SSL: no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)');
}

describe.skipIf(system === null)('pg_dump of a source over SSL', () => {
  let server: SslPostgres;
  let main: TestDatabase;
  let engine: TestEngine;
  const sslFolders = async (): Promise<string[]> => (await readdir(tmpdir())).filter((n) => n.startsWith('engine-ssl-'));

  beforeAll(async () => {
    server = await startSslPostgres({ system: true });
    await server.sql(CERT_DATABASE, 'CREATE TABLE secret_book (id int PRIMARY KEY, title text NOT NULL)');
    const c = server.certs;
    Object.assign(process.env, { [ENV.ca]: c.ca, [ENV.cert]: c.clientCert, [ENV.key]: c.clientKeyEncrypted, [ENV.password]: c.clientKeyPassword });
    main = await createTestDatabase('ssldump');
    engine = await startTestEngine({ databaseUrl: main.url });
  }, 180_000);
  afterAll(async () => {
    await engine?.close();
    for (const name of Object.values(ENV)) delete process.env[name];
    await main?.drop();
    await server?.stop();
  });

  it('dumps with the source’s certificates, and leaves no certificate file behind', async () => {
    const r = await engine.metadata({
      type: 'pg_add_source',
      args: {
        name: 'secure',
        configuration: {
          connection_info: {
            database_url: server.url('localhost', CERT_DATABASE),
            ssl_configuration: {
              sslmode: 'verify-full',
              sslrootcert: { from_env: ENV.ca },
              sslcert: { from_env: ENV.cert },
              sslkey: { from_env: ENV.key },
              sslpassword: { from_env: ENV.password },
            },
          },
        },
      },
    });
    expect(r.body).toEqual({ message: 'success' });
    const before = await sslFolders();
    const dump = await engine.post('/v1alpha1/pg_dump', { source: 'secure', opts: ['-O', '-x', '--schema-only'], clean_output: true });
    expect(dump.status, dump.text).toBe(200);
    expect(dump.text).toMatch(/CREATE TABLE public\.secret_book/);
    expect(await sslFolders()).toEqual(before);
  });
});
