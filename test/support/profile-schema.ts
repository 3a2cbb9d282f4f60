/**
 * A database whose answers show the session: table `profile` (ids 1..3) that
 * role `user` reads only its own row of (X-Engine-User-Id) and role `guest`
 * reads whole.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from './pg.ts';
import { startTestEngine, type TestEngine } from './engine.ts';
import type { Settings } from '../../engine/cli/settings.ts';

export const ADMIN_SECRET = 'auth-test-secret';

/** Creates the profile database. */
export async function createProfileDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase('auth');
  await db.sql(`CREATE TABLE profile (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO profile VALUES (1, 'one'), (2, 'two'), (3, 'three')`);
  return db;
}

/** Starts an engine over the profile database with the given auth settings and tracks `profile`. */
export async function startProfileEngine(db: TestDatabase, settings: Partial<Settings>): Promise<TestEngine> {
  const engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, ...settings });
  const admin = { 'x-engine-admin-secret': ADMIN_SECRET };
  const exported = await engine.metadata<{ sources: Array<{ name: string; tables: unknown[] }> }>({ type: 'export_metadata', args: {} }, admin);
  const metadata = exported.body;
  const source = metadata.sources.find((s) => s.name === 'default');
  if (source === undefined) throw new Error('no default source');
  source.tables = [
    {
      table: { schema: 'public', name: 'profile' },
      select_permissions: [
        { role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } } } },
        { role: 'guest', permission: { columns: ['id'], filter: {} } },
      ],
    },
  ];
  const replaced = await engine.metadata({ type: 'replace_metadata', args: metadata }, admin);
  if (replaced.status !== 200) throw new Error(`replace_metadata: ${replaced.text}`);
  return engine;
}

/** The query the tests ask: every readable profile id. */
export const PROFILE_IDS = '{ profile(order_by: {id: asc}) { id } }';

/** A real HTTP server on loopback for webhooks and JWK sets; `handler` may be swapped. */
export interface TestServer {
  readonly url: string;
  handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
  readonly requests: Array<{ method: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/** Starts a loopback HTTP server recording every request. */
export async function startTestServer(handler: TestServer['handler']): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const state = { handler };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', headers: req.headers, body });
      state.handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    get handler() {
      return state.handler;
    },
    set handler(h) {
      state.handler = h;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
