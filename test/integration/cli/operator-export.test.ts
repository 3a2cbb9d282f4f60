/**
 * `engine operator export --from-server` as a user runs it (the real command line, a child process)
 * against a real engine holding a v2 metadata directory's metadata (applied with `engine metadata
 * apply`): it writes the same resources as the export of the directory itself, moves the secrets
 * the engine exports by value out of them, lists on stderr what no kind expresses, and with
 * --strict exits 1 for it. The round trip through a cluster is test/k8s/operator-export.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCli, filesUnder, REPO_ROOT } from '../../support/engine-cli.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { V2_CHINOOK_SQL, V2_DEFAULT_SQL, V2_REMOTE_SDL, writeV2MetadataDir } from '../../support/v2-metadata-dir.ts';

const SECRET = 'operator-export-secret';

describe('engine operator export --from-server', { timeout: 90_000 }, () => {
  let tmp: string;
  let dbA: TestDatabase;
  let dbB: TestDatabase;
  let remote: GraphqlTestServer;
  let engine: EngineProcess;
  let secrets: Record<string, string>;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'operator-export-'));
    remote = await startGraphqlServer(V2_REMOTE_SDL, { country: ({ code }: { code: string }) => ({ code, name: code }) });
    dbA = await createTestDatabase('opx_a');
    await dbA.sql(V2_DEFAULT_SQL);
    dbB = await createTestDatabase('opx_b');
    await dbB.sql(V2_CHINOOK_SQL);
    secrets = writeV2MetadataDir(path.join(tmp, 'project', 'metadata'), {
      defaultDbEnv: 'EXPORT_DEFAULT_DB',
      chinookUrl: dbB.url,
      remoteSchemaUrl: remote.url,
      hooks: 'http://127.0.0.1:9',
      unexpressible: true,
    });
    engine = await spawnEngine([], {
      ENGINE_GRAPHQL_DATABASE_URL: dbA.url,
      ENGINE_GRAPHQL_ADMIN_SECRET: SECRET,
      ENGINE_GRAPHQL_LOG_LEVEL: 'warn',
      EXPORT_DEFAULT_DB: dbA.url,
      HOOK_TRACE: 'trace',
    });
    const applied = await engineCli(REPO_ROOT, [
      'metadata',
      'apply',
      '--project',
      path.join(tmp, 'project'),
      '--endpoint',
      engine.url,
      '--admin-secret',
      SECRET,
    ]);
    expect(applied.stderr + applied.stdout).toContain('metadata applied');
    expect(applied.code).toBe(0);
  });

  afterAll(async () => {
    await engine?.stop();
    await remote?.close();
    await dbA?.drop();
    await dbB?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  it("writes the running engine's metadata as the directory's resources, secrets moved out, losses listed", async () => {
    const fromServer = path.join(tmp, 'from-server');
    const run = await engineCli(REPO_ROOT, [
      'operator',
      'export',
      '--from-server',
      '--endpoint',
      engine.url,
      '--admin-secret',
      SECRET,
      '--out',
      fromServer,
      '--engine',
      'main',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^wrote 23 resources to .*from-server \(Source 2, TrackedTable 6, Permission 6, /);
    expect(run.stdout).toContain('5 secret value(s) were moved out of the resources');
    expect(run.stderr.trim().split('\n').sort()).toEqual([
      'not expressed by the resources (left out): api_limits (no kind of the operator expresses it)',
      'not expressed by the resources (left out): graphql_schema_introspection (no kind of the operator expresses it)',
      'not expressed by the resources (left out): remote_schemas[countries].permissions (not a field of RemoteSchema)',
    ]);
    const server = await filesUnder(fromServer);
    for (const [file, text] of server) for (const value of Object.values(secrets)) expect(text, `${file} holds a secret`).not.toContain(value);

    // The engine's export and the directory it came from give the same resources.
    const fromDir = path.join(tmp, 'from-dir');
    const local = await engineCli(REPO_ROOT, ['operator', 'export', '--project', path.join(tmp, 'project'), '--out', fromDir, '--engine', 'main']);
    expect(local.code).toBe(0);
    const dir = await filesUnder(fromDir);
    expect([...server.keys()]).toEqual([...dir.keys()]);
    for (const [file, text] of server) if (file !== 'README.md') expect(text, file).toBe(dir.get(file));
  });

  it('exits 1 under --strict when something is not expressed, and 2 on bad usage', async () => {
    const strict = await engineCli(REPO_ROOT, [
      'operator',
      'export',
      '--from',
      path.join(tmp, 'project', 'metadata'),
      '--out',
      path.join(tmp, 'strict'),
      '--strict',
      '-o',
      'json',
    ]);
    expect(strict.code).toBe(1);
    const body = JSON.parse(strict.stdout) as { error: string; lost: { path: string }[] };
    expect(body.error).toContain('3 part(s) of the metadata are not expressed');
    expect(body.lost.map((d) => d.path).sort()).toEqual(['api_limits', 'graphql_schema_introspection', 'remote_schemas[countries].permissions']);

    const both = await engineCli(REPO_ROOT, ['operator', 'export', '--from', tmp, '--from-server', '--out', path.join(tmp, 'x')]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --from or --from-server, not both');
    const noOut = await engineCli(REPO_ROOT, ['operator', 'export', '--from', tmp]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain("required option '--out <dir>' not specified");
  });
});
