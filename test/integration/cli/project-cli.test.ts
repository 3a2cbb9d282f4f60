/**
 * The `engine` project commands (issue 33), run as the real command line (`node engine/main.ts
 * ...` in a child process) against real engines on the run's PostgreSQL: a project written by
 * hand in v2's layout (from the v2 documentation's examples) migrates and applies unchanged; its
 * export applied to a fresh engine by `engine deploy` exports again to identical files;
 * migrations go up and down and report their status; a failing migration leaves the database and
 * the recorded versions as they were.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCli, filesUnder } from '../../support/engine-cli.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

const SECRET = 'project-cli-secret';
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
}

const SCHEMA_UP = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id integer NOT NULL REFERENCES author(id));
`;
const SEARCH_UP = `
CREATE FUNCTION search_articles(search text) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE ('%' || search || '%')
$$ LANGUAGE sql STABLE;
INSERT INTO author (name) VALUES ('Ann'), ('Bob');
INSERT INTO article (title, author_id) VALUES ('Hello world', 1), ('Second', 2);
`;

/** A project as v2's client writes it, from the v2 documentation's examples (both `!include` forms). */
function v2Project(remoteUrl: string): Record<string, string> {
  return {
    'config.yaml': 'version: 3\nmetadata_directory: metadata\nactions:\n  kind: synchronous\n  handler_webhook_baseurl: http://localhost:3000\n',
    'migrations/default/1700000000000_init/up.sql': SCHEMA_UP,
    'migrations/default/1700000000000_init/down.sql': 'DROP TABLE article;\nDROP TABLE author;\n',
    'migrations/default/1700000000100_search/up.sql': SEARCH_UP,
    'migrations/default/1700000000100_search/down.sql': 'DROP FUNCTION search_articles(text);\nDELETE FROM article;\nDELETE FROM author;\n',
    'metadata/version.yaml': 'version: 3\n',
    'metadata/databases/databases.yaml': [
      '- name: default',
      '  kind: postgres',
      '  configuration:',
      '    connection_info:',
      '      database_url:',
      '        from_env: PG_DATABASE_URL',
      '      isolation_level: read-committed',
      '      pool_settings:',
      '        connection_lifetime: 600',
      '        idle_timeout: 180',
      '        max_connections: 50',
      '        retries: 1',
      '      use_prepared_statements: true',
      '  tables: "!include default/tables/tables.yaml"',
      '  functions: "!include default/functions/functions.yaml"',
      '',
    ].join('\n'),
    'metadata/databases/default/tables/tables.yaml': '- "!include public_article.yaml"\n- !include public_author.yaml\n',
    'metadata/databases/default/tables/public_author.yaml': [
      'table:',
      '  name: author',
      '  schema: public',
      'array_relationships:',
      '  - name: articles',
      '    using:',
      '      foreign_key_constraint_on:',
      '        column: author_id',
      '        table:',
      '          name: article',
      '          schema: public',
      'select_permissions:',
      '  - role: user',
      '    permission:',
      '      columns:',
      '        - id',
      '        - name',
      '      filter:',
      '        id:',
      '          _eq: X-Hasura-User-Id',
      '',
    ].join('\n'),
    'metadata/databases/default/tables/public_article.yaml': [
      'table:',
      '  name: article',
      '  schema: public',
      'object_relationships:',
      '  - name: author',
      '    using:',
      '      foreign_key_constraint_on: author_id',
      'insert_permissions:',
      '  - role: user',
      '    permission:',
      '      check:',
      '        author_id:',
      '          _eq: X-Hasura-User-Id',
      '      columns:',
      '        - title',
      '      set:',
      '        author_id: x-hasura-User-Id',
      'select_permissions:',
      '  - role: user',
      '    permission:',
      '      columns: "*"',
      '      filter: {}',
      '      allow_aggregations: true',
      'event_triggers:',
      '  - name: article_created',
      '    definition:',
      '      enable_manual: false',
      '      insert:',
      '        columns: "*"',
      '    retry_conf:',
      '      interval_sec: 10',
      '      num_retries: 0',
      '      timeout_sec: 60',
      '    webhook: http://127.0.0.1:9/article-created',
      '',
    ].join('\n'),
    'metadata/databases/default/functions/functions.yaml': '- "!include public_search_articles.yaml"\n',
    'metadata/databases/default/functions/public_search_articles.yaml': 'function:\n  name: search_articles\n  schema: public\n',
    'metadata/actions.graphql': [
      'type Mutation {',
      '  login(username: String!, password: String!): LoginResponse',
      '}',
      '',
      'type LoginResponse {',
      '  accessToken: String!',
      '}',
      '',
    ].join('\n'),
    'metadata/actions.yaml': [
      'actions:',
      '  - name: login',
      '    definition:',
      '      kind: synchronous',
      '      handler: http://localhost:3000/login',
      '    permissions:',
      '      - role: user',
      'custom_types:',
      '  enums: []',
      '  input_objects: []',
      '  objects:',
      '    - name: LoginResponse',
      '  scalars: []',
      '',
    ].join('\n'),
    'metadata/remote_schemas.yaml': `- name: countries\n  definition:\n    url: ${remoteUrl}\n    timeout_seconds: 60\n  comment: ""\n`,
    'metadata/query_collections.yaml': [
      '- name: allowed-queries',
      '  definition:',
      '    queries:',
      '      - name: authors',
      '        query: |',
      '          query authors {',
      '            author {',
      '              id',
      '              name',
      '            }',
      '          }',
      '',
    ].join('\n'),
    'metadata/allow_list.yaml': '- collection: allowed-queries\n  scope:\n    global: true\n',
    'metadata/rest_endpoints.yaml': [
      '- name: authors',
      '  url: authors',
      '  methods:',
      '    - GET',
      '  definition:',
      '    query:',
      '      collection_name: allowed-queries',
      '      query_name: authors',
      '',
    ].join('\n'),
    'metadata/cron_triggers.yaml': [
      '- name: nightly-report',
      '  webhook: http://127.0.0.1:9/cron',
      '  schedule: 0 0 * * *',
      '  include_in_metadata: true',
      '  payload: {}',
      '',
    ].join('\n'),
    'metadata/inherited_roles.yaml': '- role_name: editor\n  role_set:\n    - user\n    - manager\n',
    'metadata/api_limits.yaml': 'disabled: false\ndepth_limit:\n  global: 10\n  per_role: {}\n',
    'metadata/network.yaml': '{}\n',
    'metadata/graphql_schema_introspection.yaml': 'disabled_for_roles:\n  - anonymous\n',
  };
}

describe('engine project commands', () => {
  let dbA: TestDatabase;
  let dbB: TestDatabase;
  let engineA: EngineProcess;
  let engineB: EngineProcess;
  let remote: GraphqlTestServer;
  let work: string;
  let envA: Record<string, string>;
  let envB: Record<string, string>;

  beforeAll(async () => {
    [dbA, dbB] = await Promise.all([createTestDatabase('clia'), createTestDatabase('clib')]);
    cleanups.push(
      () => dbA.drop(),
      () => dbB.drop(),
    );
    remote = await startGraphqlServer('type Query { country(code: String!): String }', { country: ({ code }: { code: string }) => `country ${code}` });
    cleanups.push(() => remote.close());
    const start = async (db: TestDatabase): Promise<EngineProcess> =>
      await spawnEngine([], {
        ENGINE_GRAPHQL_DATABASE_URL: db.url,
        ENGINE_GRAPHQL_ADMIN_SECRET: SECRET,
        PG_DATABASE_URL: db.url,
        ENGINE_GRAPHQL_LOG_LEVEL: 'warn',
      });
    [engineA, engineB] = await Promise.all([start(dbA), start(dbB)]);
    cleanups.push(
      async () => void (await engineA.stop()),
      async () => void (await engineB.stop()),
    );
    work = await mkdtemp(path.join(tmpdir(), 'engine-project-'));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    // v2's variable names, as a v2 project's CI sets them.
    envA = { HASURA_GRAPHQL_ENDPOINT: engineA.url, HASURA_GRAPHQL_ADMIN_SECRET: SECRET };
    envB = { ENGINE_GRAPHQL_ENDPOINT: engineB.url, ENGINE_GRAPHQL_ADMIN_SECRET: SECRET };
  }, 180_000);

  it('init scaffolds a project; --help works on every command; a bad flag exits 2', async () => {
    const r = await engineCli(work, ['init', 'scaffold']);
    expect(r.code, r.stderr).toBe(0);
    const files = await filesUnder(path.join(work, 'scaffold'));
    expect([...files.keys()]).toEqual(
      expect.arrayContaining(['config.yaml', 'metadata/version.yaml', 'metadata/databases/databases.yaml', 'metadata/actions.graphql']),
    );
    expect(files.get('config.yaml')).toContain('version: 3');
    for (const cmd of [
      ['metadata'],
      ['metadata', 'apply'],
      ['migrate', 'apply'],
      ['migrate', 'status'],
      ['seed', 'create'],
      ['deploy'],
      ['metadata', 'inconsistency', 'list'],
    ]) {
      const h = await engineCli(work, [...cmd, '--help']);
      expect(h.code, cmd.join(' ')).toBe(0);
      expect(h.stdout).toContain('Usage: engine');
    }
    const bad = await engineCli(work, ['migrate', 'apply', '--upp', '1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option '--upp'");
  });

  it('says what to do when the engine is unreachable or refuses the secret', async () => {
    const down = await engineCli(work, ['metadata', 'export', '--endpoint', 'http://127.0.0.1:9']);
    expect(down.code).toBe(3);
    expect(down.stderr).toContain('cannot reach the engine at http://127.0.0.1:9');
    const denied = await engineCli(work, ['metadata', 'export', '--endpoint', engineA.url, '--admin-secret', 'wrong']);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('refused the admin secret');
  });

  it('a hand-written v2 project migrates and applies unchanged; its export deploys to a fresh engine and exports identically', async () => {
    const project = path.join(work, 'v2');
    await write(project, v2Project(remote.url));

    const mig = await engineCli(project, ['migrate', 'apply', '--database-name', 'default'], envA);
    expect(mig.code, mig.stderr).toBe(0);
    expect(mig.stderr).toContain('[2/2] up 1700000000100_search on database default');

    const applied = await engineCli(project, ['metadata', 'apply'], envA);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(applied.stdout).toContain('metadata applied');

    // What was applied works: the permission, the relationship and the function through GraphQL.
    const gql = await fetch(`${engineA.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hasura-admin-secret': SECRET, 'x-hasura-role': 'user', 'x-hasura-user-id': '1' },
      body: JSON.stringify({ query: '{ author { name articles { title } } search_articles(args: {search: "world"}) { title } }' }),
    });
    expect(await gql.json()).toEqual({
      data: { author: [{ name: 'Ann', articles: [{ title: 'Hello world' }] }], search_articles: [{ title: 'Hello world' }] },
    });

    // Export into a second project (same migrations), in v2's layout.
    const exported = path.join(work, 'exported');
    await cp(path.join(project, 'migrations'), path.join(exported, 'migrations'), { recursive: true });
    await writeFile(path.join(exported, 'config.yaml'), 'version: 3\n');
    const ex = await engineCli(exported, ['metadata', 'export'], envA);
    expect(ex.code, ex.stderr).toBe(0);
    const files1 = await filesUnder(path.join(exported, 'metadata'));
    expect(files1.get('databases/databases.yaml')).toContain('tables: "!include default/tables/tables.yaml"');
    expect(files1.get('databases/default/tables/tables.yaml')).toBe('- "!include public_article.yaml"\n- "!include public_author.yaml"\n');
    expect(files1.get('databases/default/functions/functions.yaml')).toBe('- "!include public_search_articles.yaml"\n');
    expect(files1.get('actions.graphql')).toContain('login(username: String!, password: String!): LoginResponse');
    expect(files1.get('actions.yaml')).toContain('handler: http://localhost:3000/login');
    expect(files1.get('actions.yaml')).not.toContain('output_type');
    for (const f of [
      'remote_schemas.yaml',
      'query_collections.yaml',
      'allow_list.yaml',
      'rest_endpoints.yaml',
      'cron_triggers.yaml',
      'inherited_roles.yaml',
      'api_limits.yaml',
      'network.yaml',
      'version.yaml',
    ]) {
      expect(files1.has(f), f).toBe(true);
    }
    expect(files1.get('cron_triggers.yaml')).toContain('nightly-report');
    expect(files1.get('inherited_roles.yaml')).toContain('role_name: editor');

    // A fresh engine on an empty database: deploy = migrations, metadata, reload.
    const deployed = await engineCli(exported, ['deploy', '-o', 'json'], envB);
    expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0);
    const report = JSON.parse(deployed.stdout) as { migrations: Array<{ applied: unknown[] }>; metadata: { is_consistent: boolean } };
    expect(report.migrations[0]?.applied).toHaveLength(2);
    expect(report.metadata.is_consistent).toBe(true);

    const again = path.join(work, 'again');
    await writeFile(path.join(await mkdir(again, { recursive: true }).then(() => again), 'config.yaml'), 'version: 3\n');
    const ex2 = await engineCli(again, ['metadata', 'export'], envB);
    expect(ex2.code, ex2.stderr).toBe(0);
    const files2 = await filesUnder(path.join(again, 'metadata'));
    expect([...files2.keys()].sort()).toEqual([...files1.keys()].sort());
    for (const [f, text] of files1) expect(files2.get(f), f).toBe(text);

    // No differences now; an edit shows as a diff of the file, and apply --dry-run changes nothing.
    const same = await engineCli(exported, ['metadata', 'diff'], envB);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('no differences');
    const cronFile = path.join(exported, 'metadata', 'cron_triggers.yaml');
    await writeFile(cronFile, (await readFile(cronFile, 'utf8')).replace('0 0 * * *', '30 1 * * *'));
    const changed = await engineCli(exported, ['metadata', 'diff', '--no-color'], envB);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain('+++ project/cron_triggers.yaml');
    expect(changed.stdout).toMatch(/^-\s*schedule: 0 0 \* \* \*$/m);
    expect(changed.stdout).toMatch(/^\+\s*schedule: 30 1 \* \* \*$/m);
    const dry = await engineCli(exported, ['metadata', 'apply', '--dry-run', '-o', 'json'], envB);
    expect((JSON.parse(dry.stdout) as { changed: Array<{ file: string }> }).changed.map((c) => c.file)).toEqual(['cron_triggers.yaml']);
    expect((await engineCli(exported, ['metadata', 'diff', '-o', 'json'], envB)).stdout).toContain('cron_triggers.yaml');
  }, 240_000);

  it('refuses inconsistent metadata unless allowed; inconsistency list, status and drop', async () => {
    const project = path.join(work, 'inconsistent');
    const ex = await engineCli(work, ['init', project]);
    expect(ex.code, ex.stderr).toBe(0);
    await engineCli(project, ['metadata', 'export'], envB);
    const tables = path.join(project, 'metadata/databases/default/tables');
    await writeFile(path.join(tables, 'tables.yaml'), (await readFile(path.join(tables, 'tables.yaml'), 'utf8')) + '- "!include public_missing.yaml"\n');
    await writeFile(path.join(tables, 'public_missing.yaml'), 'table:\n  name: missing\n  schema: public\n');
    const before = await (
      await fetch(`${engineB.url}/v1/metadata`, {
        method: 'POST',
        headers: { 'x-engine-admin-secret': SECRET, 'content-type': 'application/json' },
        body: '{"type":"get_resource_version","args":{}}',
      })
    ).json();

    const refused = await engineCli(project, ['metadata', 'apply'], envB);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('would be inconsistent');
    expect(refused.stderr).toContain('missing');
    expect(refused.stderr).toContain('--allow-inconsistent-metadata');
    const after = await (
      await fetch(`${engineB.url}/v1/metadata`, {
        method: 'POST',
        headers: { 'x-engine-admin-secret': SECRET, 'content-type': 'application/json' },
        body: '{"type":"get_resource_version","args":{}}',
      })
    ).json();
    expect(after).toEqual(before);

    const allowed = await engineCli(project, ['metadata', 'apply', '--allow-inconsistent-metadata'], envB);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('1 inconsistent object');
    const list = await engineCli(project, ['metadata', 'ic', 'list'], envB);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('missing');
    expect((await engineCli(project, ['metadata', 'inconsistency', 'status'], envB)).code).toBe(1);
    expect((await engineCli(project, ['metadata', 'inconsistency', 'drop'], envB)).code).toBe(0);
    const status = await engineCli(project, ['metadata', 'inconsistency', 'status'], envB);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('metadata is consistent');
    const reload = await engineCli(project, ['metadata', 'reload'], envB);
    expect(reload.code, reload.stderr).toBe(0);
  }, 120_000);

  it('migrations go up and down, report their status, and a failing one leaves the database and the record as they were', async () => {
    const db = await createTestDatabase('climig');
    cleanups.push(() => db.drop());
    const engine = await spawnEngine([], { ENGINE_GRAPHQL_DATABASE_URL: db.url, ENGINE_GRAPHQL_ADMIN_SECRET: SECRET, ENGINE_GRAPHQL_LOG_LEVEL: 'warn' });
    cleanups.push(async () => void (await engine.stop()));
    const project = path.join(work, 'migrations');
    await write(project, { 'config.yaml': `version: 3\nendpoint: ${engine.url}\nadmin_secret: ${SECRET}\n` });
    const create = async (name: string, up: string, down: string): Promise<string> => {
      const r = await engineCli(project, ['migrate', 'create', name, '--up-sql', up, '--down-sql', down, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { version: string }).version;
    };
    const v1 = await create('create_notes', 'CREATE TABLE notes (id int PRIMARY KEY);', 'DROP TABLE notes;');
    const v2 = await create('add_body', 'ALTER TABLE notes ADD COLUMN body text;', 'ALTER TABLE notes DROP COLUMN body;');
    const bad = await create('broken', 'CREATE TABLE later (id int);\nINSERT INTO no_such_table VALUES (1);', 'DROP TABLE later;');
    const tables = async (): Promise<string[]> =>
      (await db.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).rows.map(
        (r: { table_name: string }) => r.table_name,
      );
    const recorded = async (): Promise<string[]> => {
      const r = await db.sql("SELECT cli_state->'migrations'->'default' AS m FROM engine_metadata.catalog_state");
      return Object.keys((r.rows[0] as { m: Record<string, boolean> | null } | undefined)?.m ?? {}).sort();
    };
    const status = async (): Promise<Array<{ version: string; database_status: string }>> => {
      const r = await engineCli(project, ['migrate', 'status', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { migrations: Array<{ version: string; database_status: string }> }).migrations;
    };

    // The run stops at the failing migration, says which and why; it and its record are not there.
    const failed = await engineCli(project, ['migrate', 'apply']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`migration ${bad}_broken (up) failed on database default`);
    expect(failed.stderr).toContain('no_such_table');
    expect(await tables()).toEqual(['notes']);
    expect(await recorded()).toEqual([v1, v2].sort());
    expect((await status()).map((s) => s.database_status)).toEqual(['Present', 'Present', 'Not Present']);
    const text = await engineCli(project, ['migrate', 'status']);
    expect(text.stdout).toMatch(new RegExp(`${bad}\\s+broken\\s+Present\\s+Not Present`));

    // Fixed, it applies; then down 2, goto, and a single version.
    await writeFile(path.join(project, 'migrations/default', `${bad}_broken`, 'up.sql'), 'CREATE TABLE later (id int);');
    const fixed = await engineCli(project, ['migrate', 'apply', '--database-name', 'default']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stderr).toContain(`[1/1] up ${bad}_broken`);
    expect(await tables()).toEqual(['later', 'notes']);
    expect(await recorded()).toEqual([v1, v2, bad].sort());

    const down = await engineCli(project, ['migrate', 'apply', '--down', '2']);
    expect(down.code, down.stderr).toBe(0);
    expect(await tables()).toEqual(['notes']);
    expect((await db.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'notes'")).rows).toEqual([{ column_name: 'id' }]);
    expect(await recorded()).toEqual([v1]);

    expect((await engineCli(project, ['migrate', 'apply', '--goto', v2])).code).toBe(0);
    expect(await recorded()).toEqual([v1, v2].sort());
    expect((await engineCli(project, ['migrate', 'apply', '--up', '1'])).code).toBe(0);
    expect(await recorded()).toEqual([v1, v2, bad].sort());
    expect((await engineCli(project, ['migrate', 'apply', '--goto', v1])).code).toBe(0);
    expect(await recorded()).toEqual([v1]);
    expect((await engineCli(project, ['migrate', 'apply', '--version', v1, '--type', 'down'])).code).toBe(0);
    expect(await tables()).toEqual([]);
    expect(await recorded()).toEqual([]);
    const nothing = await engineCli(project, ['migrate', 'apply', '--down', 'all']);
    expect(nothing.stdout).toContain('nothing to apply');

    // A failing down migration is rolled back too.
    expect((await engineCli(project, ['migrate', 'apply'])).code).toBe(0);
    await writeFile(path.join(project, 'migrations/default', `${v2}_add_body`, 'down.sql'), 'ALTER TABLE notes DROP COLUMN body; SELECT 1/0;');
    await writeFile(path.join(project, 'migrations/default', `${bad}_broken`, 'down.sql'), 'DROP TABLE later;');
    const badDown = await engineCli(project, ['migrate', 'apply', '--down', '2', '-o', 'json']);
    expect(badDown.code).toBe(1);
    const err = JSON.parse(badDown.stdout) as { error: string; version: string; direction: string };
    expect(err.version).toBe(v2);
    expect(err.direction).toBe('down');
    expect(err.error).toContain('division by zero');
    expect(await recorded()).toEqual([v1, v2].sort());
    expect((await db.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'notes' ORDER BY 1")).rows).toEqual([
      { column_name: 'body' },
      { column_name: 'id' },
    ]);

    // Squash and delete.
    const sq = await engineCli(project, ['migrate', 'squash', '--from', v1, '--name', 'all_in_one', '--delete-source', '-o', 'json']);
    expect(sq.code, sq.stdout + sq.stderr).toBe(0);
    const squashed = (JSON.parse(sq.stdout) as { version: string; squashed: string[] }).version;
    expect(await readdir(path.join(project, 'migrations/default'))).toEqual([`${squashed}_all_in_one`]);
    expect(await recorded()).toEqual([]);
    const del = await engineCli(project, ['migrate', 'delete', '--version', squashed]);
    expect(del.code, del.stderr).toBe(0);
    expect(await readdir(path.join(project, 'migrations/default'))).toEqual([]);
  }, 180_000);

  it('seed create --from-table and seed apply put the rows back', async () => {
    const project = path.join(work, 'seeds');
    await write(project, { 'config.yaml': 'version: 3\n' });
    const created = await engineCli(project, ['seed', 'create', 'authors', '--from-table', 'public.author', '-o', 'json'], envA);
    expect(created.code, created.stderr + created.stdout).toBe(0);
    const file = (JSON.parse(created.stdout) as { file: string }).file;
    expect(await readFile(file, 'utf8')).toContain('INSERT INTO "public"."author"');
    await dbA.sql("INSERT INTO author (name) VALUES ('Cy')");
    await dbA.sql('DELETE FROM article; DELETE FROM author');
    const applied = await engineCli(project, ['seed', 'apply', '--file', path.basename(file)], envA);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await dbA.sql('SELECT id, name FROM author ORDER BY id')).rows).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
    ]);
    const missing = await engineCli(project, ['seed', 'apply', '--file', 'nope.sql'], envA);
    expect(missing.code).toBe(2);
  }, 120_000);
});
