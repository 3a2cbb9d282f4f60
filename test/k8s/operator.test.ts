/**
 * The operator against a REAL kube-apiserver + etcd (test/k8s/control-plane.ts) and a real
 * engine on the run's PostgreSQL. Skips (with the reason printed) when the apiserver binaries
 * are not built: run test/k8s/build-apiserver.sh once (10-25 min, cached outside the repo).
 *
 * The tests share one control plane, engine and database and run in order; each builds on the
 * state the previous one left (as a user's cluster would).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition } from '../../controller/api/v1alpha1/common.ts';
import { EngineClient } from '../../controller/engine-client/client.ts';
import { createTestDatabase, type TestDatabase } from '../support/pg.ts';
import { freePort } from '../support/engine-process.ts';
import { findBinaries, startControlPlane, type ControlPlane } from './control-plane.ts';
import { startController, startEngineAt, type Proc } from './processes.ts';

const bins = findBinaries();
const skipReason = 'missing' in bins ? bins.missing : null;
if (skipReason !== null) console.warn(`[k8s] skipping operator tests: ${skipReason}`);

const API = 'graphql.engine.dev/v1alpha1';
const ADMIN_SECRET = 'k8s-test-secret';

interface Obj {
  metadata: { name: string; generation?: number; resourceVersion?: string; finalizers?: string[] };
  status?: { observedGeneration?: number; conditions?: Condition[]; managedObjects?: string[] };
}

// Generous per-test timeout: CI runs this file next to the rest of the suite on two cores.
describe.skipIf(skipReason !== null)('operator on a real kube-apiserver', { timeout: 90_000 }, () => {
  let cp: ControlPlane;
  let db: TestDatabase;
  let engine: Proc;
  let enginePort: number;
  let controller: Proc;
  let client: EngineClient;

  const get = (plural: string, name: string): Obj | null => {
    try {
      return JSON.parse(cp.kubectl(['get', `${plural}.graphql.engine.dev`, name, '-o', 'json'])) as Obj;
    } catch {
      return null;
    }
  };
  const cond = (plural: string, name: string, type = 'Ready'): Condition | undefined => get(plural, name)?.status?.conditions?.find((c) => c.type === type);
  const until = async <T>(what: string, fn: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const v = await fn();
        if (v !== null && v !== undefined && v !== false) return v;
      } catch (e) {
        last = e;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}\ncontroller:\n${controller?.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const readyWith = async (plural: string, name: string, status: 'True' | 'False', reason?: string, timeoutMs?: number): Promise<Condition> =>
    await until(
      `${plural}/${name} Ready=${status}${reason === undefined ? '' : ` ${reason}`}`,
      () => {
        const c = cond(plural, name);
        return c !== undefined && c.status === status && (reason === undefined || c.reason === reason) ? c : null;
      },
      timeoutMs,
    );
  const engineTables = async (): Promise<Array<{ table: { name: string }; configuration?: Record<string, unknown>; select_permissions: { role: string }[]; insert_permissions: { role: string }[] }>> =>
    (await client.exportMetadata()).metadata.sources.find((s) => s.name === 'default')?.tables as never;

  const trackedTable = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: API, kind: 'TrackedTable', metadata: { name, namespace: 'default' }, spec });
  const permission = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: API, kind: 'Permission', metadata: { name, namespace: 'default' }, spec });

  beforeAll(async () => {
    const t0 = Date.now();
    cp = await startControlPlane();
    console.log(`[k8s] ${String(cp)}; CRDs installed after ${Date.now() - t0} ms`);
    db = await createTestDatabase('k8s');
    await db.sql(`
      CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
      CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author(id));
    `);
    for (let i = 0; i < 40; i++) await db.sql(`CREATE TABLE bulk_${i} (id serial PRIMARY KEY, v text)`);
    enginePort = await freePort();
    engine = await startEngineAt(enginePort, ['--database-url', db.url, '--admin-secret', ADMIN_SECRET]);
    client = new EngineClient({ url: `http://127.0.0.1:${enginePort}`, adminSecret: ADMIN_SECRET });
    cp.kubectl(['create', 'secret', 'generic', 'engine-admin', `--from-literal=admin-secret=${ADMIN_SECRET}`]);
    // The operator's manifests as a user installs them; no kubelet runs the Deployment, so the
    // controller runs here, as the operator's ServiceAccount, with exactly that RBAC.
    cp.kubectl(['apply', '-k', 'config/default']);
    controller = startController(cp.operatorKubeconfig, 'controller-a');
  }, 180_000);

  afterAll(async () => {
    await controller?.stop();
    await engine?.stop();
    await cp?.stop();
    await db?.drop();
  });

  it('validates the samples and refuses specs that break the CEL rules', () => {
    expect(cp.kubectl(['apply', '-k', 'config/samples', '--dry-run=server'])).toContain('permission.graphql.engine.dev/article-user-select created (server dry run)');
    const refused = (manifest: unknown): string => {
      try {
        cp.apply(manifest);
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(refused(permission('bad-limit', { table: 'a', role: 'user', operation: 'insert', permission: { check: {}, limit: 5 } }))).toContain(
      'permission.limit is allowed only for operation select',
    );
    expect(refused({ apiVersion: API, kind: 'EventTrigger', metadata: { name: 'two-hooks' }, spec: { table: 'a', webhook: 'http://x', webhook_from_env: 'X', insert: { columns: '*' } } })).toContain(
      'exactly one of webhook or webhook_from_env is required',
    );
    expect(refused({ apiVersion: API, kind: 'CronTrigger', metadata: { name: 'bad-cron' }, spec: { webhook: 'http://x', schedule: '* * * *  ' } })).toContain(
      'schedule must be a cron expression of five fields',
    );
  });

  it('applies an Engine, tracked tables with a relationship and a permission, and marks them Ready', async () => {
    cp.apply({
      apiVersion: API,
      kind: 'Engine',
      metadata: { name: 'main', namespace: 'default' },
      spec: { url: `http://127.0.0.1:${enginePort}`, adminSecretRef: { name: 'engine-admin' }, resyncSeconds: 10 },
    });
    cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        trackedTable('author', { table: 'author' }),
        trackedTable('article', { table: 'article', object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] }),
        permission('author-user-select', { table: 'author', role: 'user', operation: 'select', permission: { columns: ['id', 'name'], filter: {} } }),
      ],
    });
    for (const [plural, name] of [['trackedtables', 'author'], ['trackedtables', 'article'], ['permissions', 'author-user-select'], ['engines', 'main']] as const) {
      const c = await readyWith(plural, name, 'True', 'Applied');
      expect(c.observedGeneration).toBe(1);
    }
    const tables = await engineTables();
    expect(tables.map((t) => t.table.name).sort()).toEqual(['article', 'author']);
    expect(tables.find((t) => t.table.name === 'author')?.select_permissions.map((p) => p.role)).toEqual(['user']);
    expect(get('trackedtables', 'author')?.metadata.finalizers).toEqual(['graphql.engine.dev/finalizer']);
    // kubectl get shows Ready and Reason columns; the category lists every kind; kubectl wait works.
    expect(cp.kubectl(['get', 'trackedtables.graphql.engine.dev'])).toMatch(/author\s+default\s+True\s+Applied/);
    expect(cp.kubectl(['get', 'graphql-engine'])).toMatch(/permission\.graphql\.engine\.dev\/author-user-select\s+user\s+select\s+True/);
    expect(cp.kubectl(['wait', '--for=condition=Ready', '--timeout=10s', 'trackedtables.graphql.engine.dev/article'])).toContain('condition met');
  });

  it('marks a broken Permission and a missing table False with the engine reason while the others stay Ready', async () => {
    cp.apply(permission('author-user-update', { table: 'author', role: 'user', operation: 'update', permission: { columns: ['name', 'nope'], filter: {} } }));
    cp.apply(trackedTable('ghost', { table: 'ghost' }));
    const perm = await readyWith('permissions', 'author-user-update', 'False', 'InconsistentMetadata');
    expect(perm.message).toContain('"nope"');
    expect(cond('permissions', 'author-user-update', 'Stalled')?.status).toBe('True');
    const ghost = await readyWith('trackedtables', 'ghost', 'False', 'InconsistentMetadata');
    expect(ghost.message).toMatch(/ghost/);
    expect(cond('trackedtables', 'author')?.status).toBe('True');
    expect(cond('permissions', 'author-user-select')?.status).toBe('True');
    await readyWith('engines', 'main', 'False', 'InconsistentMetadata');
    // kubectl describe shows the condition and the event.
    const describe = await until('the event in kubectl describe', () => {
      const out = cp.kubectl(['describe', 'permissions.graphql.engine.dev', 'author-user-update']);
      return out.includes('Events:') && /Warning\s+InconsistentMetadata/.test(out) ? out : null;
    });
    expect(describe).toContain('not found in table');
  });

  it('applies an update and records the new observedGeneration', async () => {
    cp.apply(permission('author-user-update', { table: 'author', role: 'user', operation: 'update', permission: { columns: ['name'], filter: {} } }));
    cp.kubectl(['delete', 'trackedtables.graphql.engine.dev', 'ghost', '--wait=true']);
    cp.apply(trackedTable('author', { table: 'author', configuration: { custom_name: 'writer' } }));
    const c = await readyWith('permissions', 'author-user-update', 'True', 'Applied');
    expect(c.observedGeneration).toBe(2);
    await until('custom_name in the engine', async () => (await engineTables()).find((t) => t.table.name === 'author')?.configuration?.['custom_name'] === 'writer');
    await until('observedGeneration 2 on author', () => cond('trackedtables', 'author')?.observedGeneration === 2);
    await readyWith('engines', 'main', 'True', 'Applied');
  });

  it('removes what a deleted resource declared (policy Delete) and keeps it with policy Orphan', async () => {
    cp.kubectl(['delete', 'permissions.graphql.engine.dev', 'author-user-update', '--wait=true']);
    await until('update permission gone from the engine', async () => {
      const t = (await engineTables()).find((x) => x.table.name === 'author') as unknown as { update_permissions: unknown[] };
      return t.update_permissions.length === 0;
    });
    cp.apply(permission('author-user-insert', { table: 'author', role: 'user', operation: 'insert', deletionPolicy: 'Orphan', permission: { check: {}, columns: ['name'] } }));
    await readyWith('permissions', 'author-user-insert', 'True', 'Applied');
    cp.kubectl(['delete', 'permissions.graphql.engine.dev', 'author-user-insert', '--wait=true']);
    expect(get('permissions', 'author-user-insert')).toBeNull();
    await until('insert permission no longer managed', () => !(get('engines', 'main')?.status?.managedObjects ?? ['x']).some((k) => k.includes('/insert')));
    expect((await engineTables()).find((t) => t.table.name === 'author')?.insert_permissions.map((p) => p.role)).toEqual(['user']);
  });

  it('reports an engine outage as Stalled/EngineUnreachable and recovers when it is back', async () => {
    await engine.stop();
    const c = await readyWith('trackedtables', 'author', 'False', 'EngineUnreachable', 40_000);
    expect(c.message).toContain(String(enginePort));
    expect(cond('trackedtables', 'author', 'Stalled')?.status).toBe('True');
    engine = await startEngineAt(enginePort, ['--database-url', db.url, '--admin-secret', ADMIN_SECRET]);
    await readyWith('trackedtables', 'author', 'True', 'Applied', 60_000);
    await readyWith('permissions', 'author-user-select', 'True', 'Applied');
  }, 120_000);

  it('writes nothing when nothing changed, and picks up changes made while the controller was down', async () => {
    const before = (await client.exportMetadata()).resourceVersion;
    const rvs = ['author', 'article'].map((n) => get('trackedtables', n)?.metadata.resourceVersion);
    await new Promise((r) => setTimeout(r, 12_000)); // longer than resyncSeconds
    expect((await client.exportMetadata()).resourceVersion).toBe(before);
    expect(['author', 'article'].map((n) => get('trackedtables', n)?.metadata.resourceVersion)).toEqual(rvs);

    await controller.stop();
    cp.apply(permission('article-user-select', { table: 'article', role: 'user', operation: 'select', permission: { columns: '*', filter: { author: { id: { _eq: 'X-Engine-User-Id' } } } } }));
    controller = startController(cp.operatorKubeconfig, 'controller-a');
    await readyWith('permissions', 'article-user-select', 'True', 'Applied', 60_000);
  }, 120_000);

  it('runs two replicas with one leader, and the standby takes over when the leader stops', async () => {
    const standby = startController(cp.operatorKubeconfig, 'controller-b');
    try {
      await until('a lease holder', () => JSON.parse(cp.kubectl(['get', 'lease', '-n', 'graphql-engine-system', 'graphql-engine-operator', '-o', 'json'])).spec.holderIdentity === 'controller-a');
      await new Promise((r) => setTimeout(r, 3000));
      expect(standby.output()).not.toContain('became leader');
      await controller.stop(); // releases the lease
      await until('controller-b leading', () => standby.output().includes('became leader'), 30_000);
      expect(JSON.parse(cp.kubectl(['get', 'lease', '-n', 'graphql-engine-system', 'graphql-engine-operator', '-o', 'json'])).spec.holderIdentity).toBe('controller-b');
      cp.apply(permission('author-user-delete', { table: 'author', role: 'user', operation: 'delete', permission: { filter: {} } }));
      await readyWith('permissions', 'author-user-delete', 'True', 'Applied');
    } finally {
      controller = standby;
    }
  }, 90_000);

  it('keeps working across an apiserver restart (watches restart with backoff and relist)', async () => {
    // Shorter than the renew deadline the tests give the controllers (30 s), so the leader keeps
    // its lease; with the default 10 s a leader exits and its Deployment restarts it.
    await cp.restartApiserver(3000);
    cp.apply(permission('article-user-delete', { table: 'article', role: 'user', operation: 'delete', permission: { filter: {} } }));
    await readyWith('permissions', 'article-user-delete', 'True', 'Applied', 60_000);
    expect(controller.child.exitCode).toBeNull();
  }, 120_000);

  it('applies remote schemas, event and cron triggers and reports what the engine answered', async () => {
    cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: API, kind: 'RemoteSchema', metadata: { name: 'countries', namespace: 'default' }, spec: { definition: { url: 'http://127.0.0.1:9/graphql' } } },
        { apiVersion: API, kind: 'EventTrigger', metadata: { name: 'author-created', namespace: 'default' }, spec: { table: 'author', webhook: 'http://127.0.0.1:9/hook', insert: { columns: '*' } } },
        { apiVersion: API, kind: 'CronTrigger', metadata: { name: 'nightly', namespace: 'default' }, spec: { webhook: 'http://127.0.0.1:9/cron', schedule: '0 3 * * *' } },
      ],
    });
    const seen: string[] = [];
    for (const [plural, name] of [['remoteschemas', 'countries'], ['eventtriggers', 'author-created'], ['crontriggers', 'nightly']] as const) {
      const c = await until(`${plural}/${name} has a Ready condition`, () => cond(plural, name));
      seen.push(`${plural}/${name}: ${c.status} ${c.reason} ${c.message}`);
      expect(c.reason).not.toBe('EngineRejected');
    }
    console.log(`[k8s] kinds the engine implements later:\n  ${seen.join('\n  ')}`);
    // The resources that worked before still do.
    expect(cond('trackedtables', 'author')?.status).toBe('True');
  });

  it('reconciles many resources (throughput)', async () => {
    const started = Date.now();
    cp.apply({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: 40 }, (_, i) => trackedTable(`bulk-${i}`, { table: `bulk_${i}` })) });
    await until(
      'all bulk tables Ready',
      () => {
        const list = JSON.parse(cp.kubectl(['get', 'trackedtables.graphql.engine.dev', '-o', 'json'])) as { items: Obj[] };
        const bulk = list.items.filter((o) => o.metadata.name.startsWith('bulk-'));
        return bulk.length === 40 && bulk.every((o) => o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      },
      120_000,
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(`[k8s] 40 TrackedTables applied and Ready in ${seconds.toFixed(1)} s (${(40 / seconds).toFixed(1)} resources/s, including kubectl polling)`);
    expect((await engineTables()).length).toBe(42);
  }, 150_000);
});
