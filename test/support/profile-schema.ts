/**
 * A database whose answers show the session: table `profile` (ids 1..3) that
 * role `user` reads only its own row of (X-Engine-User-Id) and role `guest`
 * reads whole.
 */
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
