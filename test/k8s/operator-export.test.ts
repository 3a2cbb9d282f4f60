/**
 * `engine operator export` on a REAL kube-apiserver + etcd (issue 36 point 9): a v2 metadata
 * directory (test/support/v2-metadata-dir.ts: two sources on two real databases, tables,
 * relationships, permissions, a function, event and cron triggers, a remote schema served by a
 * real GraphQL server, an action with custom types, an inherited role, an allow-listed query
 * collection and a REST endpoint) is exported by the real command line, the Secret is made from
 * the template it wrote, the directory is applied with `kubectl apply -k`, the controller applies
 * the resources to a real engine, and the engine's exported metadata is the directory's (with the
 * secrets read from the engine's environment instead of the files).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readMetadataDir } from '../../engine/cli/project/layout.ts';
import { normalizeDocument, toWireDocument } from '../../engine/model/document.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../support/graphql-server.ts';
import { normalised, withValues } from '../support/metadata-compare.ts';
import { createTestDatabase, type TestDatabase } from '../support/pg.ts';
import { V2_CHINOOK_SQL, V2_DEFAULT_SQL, V2_REMOTE_SDL, writeV2MetadataDir } from '../support/v2-metadata-dir.ts';
import { ADMIN_SECRET, k8sSkipReason, startOperatorEnv, type OperatorEnv } from './harness.ts';

const skipReason = k8sSkipReason();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

type Obj = Record<string, unknown>;

interface Report {
  readonly files: string[];
  readonly resources: Record<string, number>;
  readonly secretName: string;
  readonly secrets: { env: string; where: string }[];
  readonly referenced: string[];
  readonly lost: unknown[];
}

/** `engine operator export ...` as a user runs it; answers its JSON report. */
function exportCli(args: readonly string[]): Report {
  const out = execFileSync(process.execPath, [path.join(root, 'engine/main.ts'), 'operator', 'export', '-o', 'json', ...args], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '' },
    encoding: 'utf8',
  });
  return JSON.parse(out) as Report;
}

describe.skipIf(skipReason !== null)('engine operator export applied on a real kube-apiserver', { timeout: 180_000 }, () => {
  let env: OperatorEnv;
  let remote: GraphqlTestServer;
  let dbA: TestDatabase;
  let dbB: TestDatabase;
  let secrets: Record<string, string>;
  let first: Report;
  const tmp = mkdtempSync(path.join(tmpdir(), 'k8s-export-'));
  const md = path.join(tmp, 'metadata');
  const out = path.join(tmp, 'resources');

  beforeAll(async () => {
    remote = await startGraphqlServer(V2_REMOTE_SDL, { country: ({ code }: { code: string }) => ({ code, name: `country ${code}` }) });
    dbA = await createTestDatabase('k8s_expa');
    await dbA.sql(V2_DEFAULT_SQL);
    dbB = await createTestDatabase('k8s_expb');
    await dbB.sql(V2_CHINOOK_SQL);
    secrets = writeV2MetadataDir(md, { defaultDbEnv: 'EXPORT_DEFAULT_DB', chinookUrl: dbB.url, remoteSchemaUrl: remote.url, hooks: 'http://127.0.0.1:9' });
    // The variables the engine needs come from the export (the engine's port is known only once it runs).
    first = exportCli(['--from', md, '--out', out, '--engine', 'main']);
    const engineEnv: Record<string, string> = { EXPORT_DEFAULT_DB: dbA.url, HOOK_TRACE: 'trace-1' };
    for (const s of first.secrets) engineEnv[s.env] = secrets[s.where] ?? '';
    env = await startOperatorEnv('k8s_export', '', {}, { env: engineEnv });
  }, 180_000);

  afterAll(async () => {
    await env?.stop();
    await remote?.close();
    await dbA?.drop();
    await dbB?.drop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('applies the exported directory with kubectl apply -k and the engine ends up with the same metadata', async () => {
    const report = exportCli(['--from', md, '--out', out, '--engine', 'main', '--engine-url', `http://127.0.0.1:${env.enginePort}`, '--force']);
    // Stable: the same variables and resource files as the first export.
    expect(report.secrets).toEqual(first.secrets);
    expect(report.files.filter((f) => f !== 'engine.yaml')).toEqual(first.files);
    expect(report.lost).toEqual([]);
    expect(report.referenced).toEqual(['EXPORT_DEFAULT_DB', 'HOOK_TRACE']);
    for (const f of readdirSync(out)) {
      const text = readFileSync(path.join(out, f), 'utf8');
      for (const value of Object.values(secrets)) expect(text, `${f} holds a secret`).not.toContain(value);
    }

    // The Secret from the template (the operator reads the admin secret from it), then the directory.
    const template = parseYaml(readFileSync(path.join(out, 'secret.template.yaml'), 'utf8')) as { metadata: Obj; stringData: Record<string, string> };
    const stringData: Record<string, string> = {};
    for (const key of Object.keys(template.stringData)) {
      stringData[key] = key === 'admin-secret' ? ADMIN_SECRET : (secrets[report.secrets.find((s) => s.env === key)?.where ?? ''] ?? '');
      expect(stringData[key], key).not.toBe('');
    }
    env.cp.apply({ ...template, stringData });
    const applied = env.cp.kubectl(['apply', '-k', out]);
    const count = Object.values(report.resources).reduce((a, b) => a + b, 0);
    expect(applied.trim().split('\n')).toHaveLength(count + 1);

    const started = Date.now();
    const notReady = (): string[] => {
      const list = JSON.parse(env.cp.kubectl(['get', 'graphql-engine', '-o', 'json'])) as {
        items: { kind: string; metadata: { name: string }; status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }[];
      };
      if (list.items.length !== count + 1) return [`${list.items.length} of ${count + 1} resources`];
      return list.items
        .map((o) => ({ o, c: o.status?.conditions?.find((c) => c.type === 'Ready') }))
        .filter(({ c }) => c?.status !== 'True')
        .map(({ o, c }) => `${o.kind}/${o.metadata.name}: ${c === undefined ? 'no Ready' : `${c.reason} ${c.message}`}`);
    };
    let last: string[] = [];
    try {
      await env.until(
        'every exported resource Ready',
        () => {
          last = notReady();
          return last.length === 0;
        },
        120_000,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\nnot ready: ${last.join('\n')}`);
    }
    console.log(`[k8s] ${count} exported resources applied and Ready ${((Date.now() - started) / 1000).toFixed(1)} s after kubectl apply -k`);

    // The engine's metadata is the directory's: consistent, and equal once the secrets' values
    // (which the engine reads from its environment) are put back where they are referenced.
    const inconsistent = await env.client.getInconsistentMetadata();
    expect(inconsistent.inconsistentObjects).toEqual([]);
    const exported = toWireDocument((await env.client.exportMetadata()).metadata);
    const values = new Map(report.secrets.map((s) => [s.env, secrets[s.where] ?? '']));
    const directory = toWireDocument(normalizeDocument(await readMetadataDir(md)));
    expect(normalised(withValues(exported, values))).toEqual(normalised(directory));
    // The remote schema was called with the header value the engine read from its environment.
    expect(remote.requests.some((r) => r.headers['authorization'] === 'Bearer rs-token-456')).toBe(true);
  });
});
