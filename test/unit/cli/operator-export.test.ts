/**
 * `engine operator export` (issue 36 point 9), the round trip without a cluster: a v2 metadata
 * directory generated here → the files the command writes → those files parsed back and folded by
 * the controller's own fold (as the controller folds what `kubectl apply -k` stored) → the same
 * metadata document, compared normalised (list order, nulls). The secrets the directory gives by
 * value must be in no written file, and putting their values back into the references the
 * resources carry must give the directory's document exactly. What no kind expresses is listed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { API_VERSION } from '../../../controller/api/v1alpha1/common.ts';
import type { TargetResource } from '../../../controller/reconcilers/declarations.ts';
import { foldResources } from '../../../controller/reconcilers/fold.ts';
import { readMetadataDir } from '../../../engine/cli/project/layout.ts';
import { writeOperatorExport, type OperatorExportReport } from '../../../engine/cli/project/operator-export.ts';
import { EMPTY_DOCUMENT, normalizeDocument, toWireDocument } from '../../../engine/model/document.ts';
import { documentToResources } from '../../../controller/export/resources.ts';
import { normalised, withValues } from '../../support/metadata-compare.ts';
import { writeV2MetadataDir, type V2DirOptions } from '../../support/v2-metadata-dir.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'operator-export-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const OPTIONS: V2DirOptions = {
  defaultDbEnv: 'PG_DEFAULT_URL',
  chinookUrl: 'postgres://chinook:pw-Very-Secret@db.internal:5432/chinook',
  remoteSchemaUrl: 'http://countries.internal/graphql',
  hooks: 'http://hooks.internal',
};

type Obj = Record<string, unknown>;

/** The document the resources in `dir` declare, folded into an empty engine by the controller's fold. */
function foldDirectory(dir: string): ReturnType<typeof foldResources> {
  const kustomization = parseYaml(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  const resources: TargetResource[] = kustomization.resources
    .map((f) => parseYaml(readFileSync(path.join(dir, f), 'utf8')) as TargetResource)
    .filter((r) => r.kind !== 'Engine')
    .map((r, i) => ({
      ...r,
      metadata: { ...r.metadata, namespace: r.metadata.namespace ?? 'default', uid: `u${i}`, creationTimestamp: '2026-01-01T00:00:00Z' },
    }));
  for (const r of resources) expect(r.apiVersion).toBe(API_VERSION);
  return foldResources({ current: EMPTY_DOCUMENT, resources, previousManaged: [], policy: 'Merge' });
}

function filesOf(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
}

async function exportOf(name: string, opts: Partial<V2DirOptions> = {}, extra: Partial<Parameters<typeof writeOperatorExport>[1]> = {}) {
  const md = path.join(tmp, `${name}-md`);
  const out = path.join(tmp, `${name}-out`);
  const secrets = writeV2MetadataDir(md, { ...OPTIONS, ...opts });
  const raw = await readMetadataDir(md);
  const report = await writeOperatorExport(raw, { out, from: md, engine: 'main', ...extra });
  return { md, out, raw, secrets, report };
}

describe('engine operator export', () => {
  it('writes resources that the fold turns back into the same metadata, with no secret in any file', async () => {
    const { out, raw, secrets, report } = await exportOf('full', {}, { namespace: 'team-a', engineUrl: 'http://engine.team-a.svc:8080' });
    expect(report.lost).toEqual([]);
    expect(report.refused).toEqual([]);
    expect(report.resources).toEqual({
      Source: 2,
      TrackedTable: 6,
      Permission: 6,
      RemoteSchema: 1,
      EventTrigger: 1,
      CronTrigger: 1,
      Function: 1,
      InheritedRole: 1,
      Action: 1,
      CustomTypes: 1,
      QueryCollection: 1,
      RestEndpoint: 1,
    });

    // Every secret given by value became a variable; none of the values is in any file.
    expect(report.secrets.map((s) => s.where).sort()).toEqual(Object.keys(secrets).sort());
    const files = filesOf(out);
    for (const [file, text] of files) for (const value of Object.values(secrets)) expect(text, `${file} holds a secret`).not.toContain(value);
    expect(report.referenced).toEqual(['HOOK_TRACE', 'PG_DEFAULT_URL']);

    // The Secret template lists the admin secret and every variable; it is not applied with -k.
    const template = parseYaml(files.get('secret.template.yaml') ?? '') as { kind: string; metadata: Obj; stringData: Obj };
    expect(template.kind).toBe('Secret');
    expect(template.metadata).toEqual({ name: 'main-secrets', namespace: 'team-a' });
    expect(Object.keys(template.stringData).sort()).toEqual(['admin-secret', ...report.secrets.map((s) => s.env)].sort());
    const kustomization = parseYaml(files.get('kustomization.yaml') ?? '') as { namespace: string; resources: string[] };
    expect(kustomization.namespace).toBe('team-a');
    expect(kustomization.resources).not.toContain('secret.template.yaml');
    expect(kustomization.resources.sort()).toEqual(
      [...files.keys()].filter((f) => f !== 'kustomization.yaml' && f !== 'secret.template.yaml' && f !== 'README.md').sort(),
    );
    const engine = parseYaml(files.get('engine.yaml') ?? '') as { kind: string; spec: Obj };
    expect(engine).toMatchObject({
      kind: 'Engine',
      spec: { url: 'http://engine.team-a.svc:8080', adminSecretRef: { name: 'main-secrets', key: 'admin-secret' } },
    });
    const readme = files.get('README.md') ?? '';
    for (const s of report.secrets) expect(readme).toContain(`| \`${s.env}\` | \`${s.where}\` |`);
    expect(readme).toContain('Nothing: the resources fold back to the whole metadata.');

    // Each resource targets the Engine and has a valid Kubernetes name.
    for (const f of kustomization.resources) {
      const r = parseYaml(files.get(f) ?? '') as { kind: string; metadata: { name: string; namespace: string }; spec: Obj };
      expect(r.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(r.metadata.name.length).toBeLessThanOrEqual(63);
      expect(r.metadata.namespace).toBe('team-a');
      if (r.kind !== 'Engine') expect(r.spec['engineRef']).toEqual({ name: 'main' });
    }

    // The round trip: fold the files, put the secret values back, compare with the directory.
    const fold = foldDirectory(out);
    expect([...fold.results.values()].filter((r) => r.state !== 'applied')).toEqual([]);
    const envValue = new Map(report.secrets.map((s) => [s.env, secrets[s.where] ?? '']));
    const back = withValues(toWireDocument(fold.desired), envValue);
    expect(normalised(back)).toEqual(normalised(toWireDocument(normalizeDocument(raw))));
  });

  it('lists what no kind expresses, and folds back everything else', async () => {
    const { out, raw, report } = await exportOf('partial', { unexpressible: true });
    expect(report.lost.map((d) => `${d.path} ${String(d.kind)}`).sort()).toEqual([
      'api_limits null',
      'graphql_schema_introspection null',
      'remote_schemas[countries].permissions RemoteSchema',
    ]);
    const readme = readFileSync(path.join(out, 'README.md'), 'utf8');
    expect(readme).toContain('- `api_limits` — no kind expresses it');
    expect(readme).toContain('- `remote_schemas[countries].permissions` — not a field of RemoteSchema');
    const fold = foldDirectory(out);
    const expected = structuredClone(normalised(toWireDocument(normalizeDocument(raw)))) as Obj;
    delete expected['api_limits'];
    delete expected['graphql_schema_introspection'];
    delete ((expected['remote_schemas'] as Obj[])[0] as Obj)['permissions'];
    const folded = normalised(toWireDocument(fold.desired)) as Obj;
    // Secrets aside (the first test checks them), the rest is the directory's.
    delete folded['remote_schemas'];
    delete expected['remote_schemas'];
    expect(Object.keys(folded).sort()).toEqual(Object.keys(expected).sort());
    expect(folded['inherited_roles']).toEqual(expected['inherited_roles']);
    expect(folded['query_collections']).toEqual(expected['query_collections']);
    expect(folded['allowlist']).toEqual(expected['allowlist']);
  });

  it('gives clashing and long names a stable hash suffix', async () => {
    const a = await exportOf('names-a');
    const b = await exportOf('names-b');
    const tables = (r: OperatorExportReport): string[] => r.files.filter((f) => f.startsWith('trackedtable-user-role')).sort();
    expect(tables(a.report)).toHaveLength(2);
    expect(tables(a.report)).toEqual(tables(b.report));
    for (const f of tables(a.report)) expect(f).toMatch(/^trackedtable-user-role-[0-9a-f]{6}\.yaml$/);
    const specs = tables(a.report).map((f) => (parseYaml(readFileSync(path.join(a.out, f), 'utf8')) as { spec: { table: string } }).spec.table);
    expect(specs.sort()).toEqual(['user-role', 'user_role']);
  });

  it('moves MSSQL and BigQuery credentials out, keeps references and templates, and names values to check', () => {
    const doc = normalizeDocument({
      version: 3,
      sources: [
        { name: 'sales', kind: 'mssql', tables: [], configuration: { connection_info: { connection_string: 'Server=db;Password=Mssql-Pw-1' } } },
        { name: 'kept', kind: 'mssql', tables: [], configuration: { connection_info: { connection_string: { from_env: 'KEPT_CS' } } } },
        {
          name: 'bq',
          kind: 'bigquery',
          tables: [],
          configuration: { service_account: { client_email: 'a@b', private_key: 'BQ-PRIVATE-KEY', project_id: 'p' }, project_id: 'p', datasets: ['d'] },
        },
        {
          name: 'pg',
          kind: 'postgres',
          tables: [
            {
              table: { schema: 'public', name: 't' },
              event_triggers: [
                {
                  name: 'e',
                  definition: { enable_manual: true },
                  retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
                  webhook: 'https://user:Hook-Pw@hooks.example/e',
                  request_transform: {
                    version: 2,
                    template_engine: 'Kriti',
                    request_headers: { add_headers: { 'x-token': 'Static-Token' }, remove_headers: [] },
                  },
                },
              ],
            },
          ],
          configuration: {
            connection_info: { database_url: { connection_parameters: { host: 'db', port: 5432, username: 'u', password: 'Param-Pw', database: 'x' } } },
            read_replicas: [{ connection_info: { database_url: '{{REPLICA_URL}}' } }],
          },
        },
      ],
    });
    const r = documentToResources(doc, { deletionPolicy: 'Orphan' });
    expect(r.secrets.map((s) => [s.env, s.where, s.value])).toEqual([
      ['SALES_CONNECTION_STRING', 'sources[sales].configuration.connection_info.connection_string', 'Server=db;Password=Mssql-Pw-1'],
      [
        'BQ_SERVICE_ACCOUNT',
        'sources[bq].configuration.service_account',
        JSON.stringify({ client_email: 'a@b', private_key: 'BQ-PRIVATE-KEY', project_id: 'p' }),
      ],
      ['PG_DATABASE_URL', 'sources[pg].configuration.connection_info.database_url', 'postgresql://u:Param-Pw@db:5432/x'],
    ]);
    expect(r.referenced).toEqual(['KEPT_CS']);
    const text = JSON.stringify(r.resources);
    for (const secret of ['Mssql-Pw-1', 'BQ-PRIVATE-KEY', 'Param-Pw']) expect(text).not.toContain(secret);
    expect(text).toContain('{{REPLICA_URL}}');
    expect(r.check).toEqual([
      'sources[pg].tables[public.t].event_triggers[e].request_transform.request_headers.add_headers[x-token]',
      'sources[pg].tables[public.t].event_triggers[e].webhook',
    ]);
    for (const res of r.resources) expect(res.manifest.spec['deletionPolicy']).toBe('Orphan');
    // A source's configuration is kept whole (read replicas too): the round trip loses nothing.
    expect(r.differences).toEqual([]);
  });

  it('reports a table key no kind has as lost and a default the controller adds as added', () => {
    const doc = normalizeDocument({
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          configuration: { connection_info: { database_url: { from_env: 'X' } } },
          tables: [
            {
              table: { schema: 'public', name: 'a' },
              remote_relationships: [
                {
                  name: 'rr',
                  definition: { to_remote_schema: { remote_schema: 'rs', lhs_fields: ['id'], remote_field: { country: { arguments: { code: '$id' } } } } },
                },
              ],
              event_triggers: [{ name: 'noretry', definition: { enable_manual: true }, webhook: 'http://h' }],
              apollo_federation_config: { enable: 'v1' },
            },
          ],
        },
      ],
      inherited_roles: [{ role_name: 'Ops.Team', role_set: ['a'] }],
    });
    const r = documentToResources(doc);
    expect(r.differences).toEqual([
      { path: 'sources[default].tables[public.a].apollo_federation_config', change: 'lost', kind: 'TrackedTable' },
      { path: 'sources[default].tables[public.a].event_triggers[noretry].retry_conf', change: 'added', kind: 'EventTrigger' },
    ]);
    expect(r.resources.map((x) => `${x.kind}/${x.name}`)).toEqual(['Source/default', 'TrackedTable/a', 'EventTrigger/noretry', 'InheritedRole/ops-team']);
    expect(r.resources[3]?.manifest.spec).toEqual({ role_name: 'Ops.Team', role_set: ['a'] });
  });

  it('quotes names that YAML 1.1 (kubectl) reads as booleans', async () => {
    const out = path.join(tmp, 'yaml11');
    const raw = {
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          configuration: { connection_info: { database_url: { from_env: 'X' } } },
          tables: [{ table: { schema: 'public', name: 'on' }, select_permissions: [{ role: 'yes', permission: { columns: ['y', 'off'], filter: {} } }] }],
        },
      ],
    };
    await writeOperatorExport(raw, { out, from: 'doc' });
    const perm = parseYaml(readFileSync(path.join(out, 'permission-on-yes-select.yaml'), 'utf8'), { version: '1.1' }) as { spec: Obj };
    expect(perm.spec).toEqual({ source: 'default', table: 'on', role: 'yes', operation: 'select', permission: { columns: ['y', 'off'], filter: {} } });
  });

  it('refuses a metadata document that is not valid, saying where', async () => {
    await expect(
      writeOperatorExport({ version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ nope: 1 }] }] }, { out: path.join(tmp, 'bad'), from: 'dir' }),
    ).rejects.toThrow(/the metadata of dir is not valid: .*sources\[0\]/);
    await expect(writeOperatorExport({ version: 3, sources: [] }, { out: path.join(tmp, 'bad2'), from: 'dir', engine: 'Main_Engine' })).rejects.toThrow(
      /--engine "Main_Engine" is not a Kubernetes name/,
    );
  });
});
