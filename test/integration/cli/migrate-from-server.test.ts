/**
 * `POST /v1alpha1/pg_dump` over HTTP, `engine migrate create --from-server` and `engine deploy`
 * of a project with a database the engine does not have yet (issue 33). The dumps run on a
 * system PostgreSQL server (test/support/postgres-debian.ts): pg_dump refuses a server newer than
 * itself, and the run's embedded server is newer than the system's pg_dump, which the last
 * endpoint test checks the engine says.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCli } from '../../support/engine-cli.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startSystemPostgres, systemPostgres, type SystemServer } from '../../support/postgres-debian.ts';

const SECRET = 'dump-secret';
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id integer NOT NULL REFERENCES author(id));
CREATE INDEX article_author ON article (author_id);
CREATE SCHEMA other;
CREATE TABLE other.hidden (id int);
`;

async function tablesOf(db: TestDatabase): Promise<string[]> {
  const r = await db.sql("SELECT table_schema || '.' || table_name AS t FROM information_schema.tables WHERE table_schema IN ('public', 'other') ORDER BY 1");
  return r.rows.map((row: { t: string }) => row.t);
}

// CI installs Debian's PostgreSQL (.ci/run); elsewhere these tests say why they skip.
const systemServer = systemPostgres();
if (systemServer === null) {
  if (process.env['CI'] === 'true') throw new Error("CI=true but no system PostgreSQL: .ci/run should have installed Debian's postgresql");
  console.warn('[skip] pg_dump tests: no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)');
}

describe.skipIf(systemServer === null)('pg_dump endpoint, migrate create --from-server, deploy of a new database', () => {
  let sys: SystemServer;
  let src: TestDatabase;
  let fresh: TestDatabase;
  let newer: TestDatabase;
  let engine: EngineProcess;
  let engineFresh: EngineProcess;

  beforeAll(async () => {
    sys = await startSystemPostgres();
    cleanups.push(() => sys.stop());
    [src, fresh] = await Promise.all([createTestDatabase('dumpsrc', sys.adminUrl), createTestDatabase('dumpnew', sys.adminUrl)]);
    newer = await createTestDatabase('dumpnewer');
    cleanups.push(
      () => newer.drop(),
      () => fresh.drop(),
      () => src.drop(),
    );
    await src.sql(SCHEMA);
    const start = async (db: TestDatabase, env: Record<string, string> = {}): Promise<EngineProcess> =>
      await spawnEngine([], { ENGINE_GRAPHQL_DATABASE_URL: db.url, ENGINE_GRAPHQL_ADMIN_SECRET: SECRET, ENGINE_GRAPHQL_LOG_LEVEL: 'warn', ...env });
    [engine, engineFresh] = await Promise.all([start(src, { NEWER_DB_URL: newer.url }), start(fresh)]);
    cleanups.push(
      async () => void (await engine.stop()),
      async () => void (await engineFresh.stop()),
    );
  }, 180_000);

  const dump = async (body: unknown, headers: Record<string, string> = { 'x-engine-admin-secret': SECRET }): Promise<Response> =>
    await fetch(`${engine.url}/v1alpha1/pg_dump`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('answers a cleaned schema dump to admins only, refuses flags outside the allow-list', async () => {
    const opts = ['-O', '-x', '--schema-only', '--schema', 'public'];
    const user = await dump({ opts, clean_output: true }, { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user' });
    expect(user.status).toBe(400);
    expect(await user.json()).toMatchObject({ code: 'access-denied', error: 'You have to be an admin to access this endpoint' });
    expect((await dump({ opts }, {})).status).toBeGreaterThanOrEqual(400);

    const file = path.join(tmpdir(), `engine-pg-dump-${process.pid}.sql`);
    for (const bad of [['-f', file], [`--file=${file}`], ['--schema-only', '-h', '127.0.0.1'], ['somedb']]) {
      const r = await dump({ opts: bad });
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'bad-request', path: expect.stringMatching(/^\$\.opts\[\d\]$/) });
    }
    expect(existsSync(file)).toBe(false);

    const clean = await dump({ opts, clean_output: true });
    expect(clean.status).toBe(200);
    expect(clean.headers.get('content-type')).toMatch(/^application\/sql/);
    const sql = await clean.text();
    expect(sql).toMatch(/CREATE TABLE public\.author/);
    expect(sql).toMatch(/CREATE INDEX article_author ON public\.article/);
    expect(sql).not.toMatch(/other\.hidden|engine_metadata/);
    const lines = sql.split('\n');
    expect(lines.filter((l) => /^SET |^--|^\\\\/.test(l))).toEqual([]);
    expect(lines.slice(0, -1).filter((l) => l.trim() === '')).toEqual([]);

    const raw = await (await dump({ opts, clean_output: false })).text();
    expect(raw).toMatch(/^SET statement_timeout = 0;$/m);
    expect(raw).toMatch(/^-- PostgreSQL database dump/m);
  });

  it('names what is missing: an unknown source, a server newer than every pg_dump', async () => {
    const unknown = await dump({ source: 'nope', opts: ['--schema-only'] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: 'not-found', error: 'source "nope" not found' });

    const add = await fetch(`${engine.url}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET },
      body: JSON.stringify({
        type: 'pg_add_source',
        args: { name: 'newer', configuration: { connection_info: { database_url: { from_env: 'NEWER_DB_URL' } } } },
      }),
    });
    expect(add.status).toBe(200);
    const versionRow = await newer.sql("SELECT current_setting('server_version_num')::int / 10000 AS v");
    const major = (versionRow.rows[0] as { v: number }).v;
    const r = await dump({ source: 'newer', opts: ['--schema-only'] });
    if (major > sys.major) {
      expect(r.status).toBe(500);
      expect(await r.json()).toMatchObject({ code: 'unexpected', error: expect.stringContaining(`needs a pg_dump of version ${major} or newer`) });
    } else {
      expect(r.status).toBe(200);
    }
  });

  it('migrate create --from-server writes an up.sql that recreates the tables on a fresh database', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'engine-from-server-'));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    expect((await engineCli(work, ['init', 'proj', '--endpoint', engine.url], {})).code).toBe(0);
    const proj = path.join(work, 'proj');
    const created = await engineCli(proj, ['migrate', 'create', 'init', '--from-server', '--database-name', 'default', '-o', 'json'], {
      ENGINE_GRAPHQL_ADMIN_SECRET: SECRET,
    });
    expect(created.code).toBe(0);
    const dir = (JSON.parse(created.stdout) as { directory: string }).directory;
    const up = await readFile(path.join(dir, 'up.sql'), 'utf8');
    expect(up).toMatch(/CREATE TABLE public\.article/);
    expect(up).not.toMatch(/^SET /m);

    expect(await tablesOf(fresh)).toEqual([]);
    const applied = await engineCli(proj, ['migrate', 'apply', '--database-name', 'default'], {
      ENGINE_GRAPHQL_ENDPOINT: engineFresh.url,
      ENGINE_GRAPHQL_ADMIN_SECRET: SECRET,
    });
    expect(applied.stderr + applied.stdout).toMatch(/1 migration\(s\) applied/);
    expect(applied.code).toBe(0);
    expect(await tablesOf(fresh)).toEqual(['public.article', 'public.author']);
    // The foreign key came along.
    await expect(fresh.sql('INSERT INTO article (title, author_id) VALUES ($1, 999)', ['x'])).rejects.toThrow(/foreign key/);
  });

  it('deploy adds a database of the project that the engine lacks, runs its migrations, then tracks its tables', async () => {
    const extra = await createTestDatabase('deploynew');
    cleanups.push(() => extra.drop());
    const target = await spawnEngine([], {
      ENGINE_GRAPHQL_DATABASE_URL: (await createTestDatabase('deploymeta').then((d) => (cleanups.push(() => d.drop()), d))).url,
      ENGINE_GRAPHQL_ADMIN_SECRET: SECRET,
      ENGINE_GRAPHQL_LOG_LEVEL: 'warn',
      EXTRA_DB_URL: extra.url,
    });
    cleanups.push(async () => void (await target.stop()));
    const proj = await mkdtemp(path.join(tmpdir(), 'engine-deploy-new-'));
    cleanups.push(() => rm(proj, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'config.yaml': 'version: 3\nmetadata_directory: metadata\n',
      'metadata/version.yaml': 'version: 3\n',
      'metadata/databases/databases.yaml': [
        '- name: extra',
        '  kind: postgres',
        '  configuration:',
        '    connection_info:',
        '      database_url:',
        '        from_env: EXTRA_DB_URL',
        '  tables: "!include extra/tables/tables.yaml"',
        '',
      ].join('\n'),
      'metadata/databases/extra/tables/tables.yaml': '- "!include public_book.yaml"\n',
      'metadata/databases/extra/tables/public_book.yaml': 'table:\n  name: book\n  schema: public\n',
      'migrations/extra/1700000000000_init/up.sql':
        "CREATE TABLE book (id serial PRIMARY KEY, title text NOT NULL);\nINSERT INTO book (title) VALUES ('Dune');\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(proj, rel)), { recursive: true });
      await writeFile(path.join(proj, rel), text);
    }
    const r = await engineCli(proj, ['deploy'], { ENGINE_GRAPHQL_ENDPOINT: target.url, ENGINE_GRAPHQL_ADMIN_SECRET: SECRET });
    expect(r.stderr + r.stdout).toMatch(/database\(s\) added: extra/);
    expect(r.code).toBe(0);
    const q = await fetch(`${target.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET },
      body: JSON.stringify({ query: '{ book { title } }' }),
    });
    expect(await q.json()).toEqual({ data: { book: [{ title: 'Dune' }] } });
    const ic = await engineCli(proj, ['metadata', 'inconsistency', 'status'], { ENGINE_GRAPHQL_ENDPOINT: target.url, ENGINE_GRAPHQL_ADMIN_SECRET: SECRET });
    expect(ic.stdout).toMatch(/metadata is consistent/);
    expect((await readdir(path.join(proj, 'migrations', 'extra'))).length).toBe(1);
  });
});
