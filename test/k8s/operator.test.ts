/**
 * The operator against a REAL kube-apiserver + etcd (test/k8s/control-plane.ts) and a real
 * engine on the run's PostgreSQL. Skips (with the reason printed) when the apiserver binaries
 * are not built: run test/k8s/build-apiserver.sh once (10-25 min, cached outside the repo).
 *
 * The tests share one control plane, engine and database and run in order; each builds on the
 * state the previous one left (as a user's cluster would).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, k8sSkipReason, resource, startOperatorEnv, type Obj, type OperatorEnv } from './harness.ts';
import { startController } from './processes.ts';

const skipReason = k8sSkipReason();

// Generous per-test timeout: CI runs this file next to the rest of the suite on two cores.
describe.skipIf(skipReason !== null)('operator on a real kube-apiserver', { timeout: 90_000 }, () => {
  let env: OperatorEnv;
  const get = (plural: string, name: string): Obj | null => env.get(plural, name);
  const cond = (plural: string, name: string, type = 'Ready'): ReturnType<OperatorEnv['cond']> => env.cond(plural, name, type);
  const until: OperatorEnv['until'] = async (what, fn, timeoutMs) => await env.until(what, fn, timeoutMs);
  const readyWith: OperatorEnv['readyWith'] = async (plural, name, status, reason, timeoutMs) => await env.readyWith(plural, name, status, reason, timeoutMs);
  const engineTables = async (): Promise<
    Array<{ table: { name: string }; configuration?: Record<string, unknown>; select_permissions: { role: string }[]; insert_permissions: { role: string }[] }>
  > => (await env.client.exportMetadata()).metadata.sources.find((s) => s.name === 'default')?.tables as never;

  const trackedTable = (name: string, spec: Record<string, unknown>): Record<string, unknown> => resource('TrackedTable', name, spec);
  const permission = (name: string, spec: Record<string, unknown>): Record<string, unknown> => resource('Permission', name, spec);

  beforeAll(async () => {
    const bulk = Array.from({ length: 40 }, (_, i) => `CREATE TABLE bulk_${i} (id serial PRIMARY KEY, v text);`).join('\n');
    env = await startOperatorEnv(
      'k8s',
      `CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
       CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author(id));
       ${bulk}`,
    );
  }, 180_000);

  afterAll(async () => {
    await env?.stop();
  });

  it('validates the samples and refuses specs that break the CEL rules', () => {
    expect(env.cp.kubectl(['apply', '-k', 'config/samples', '--dry-run=server'])).toContain(
      'permission.graphql.engine.dev/reviews-user-insert created (server dry run)',
    );
    expect(env.cp.kubectl(['apply', '-f', 'config/samples/engine_with_deployment.yaml', '--dry-run=server'])).toContain(
      'engine.graphql.engine.dev/engine created (server dry run)',
    );
    const refused = (manifest: unknown): string => {
      try {
        env.cp.apply(manifest);
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(refused(permission('bad-limit', { table: 'a', role: 'user', operation: 'insert', permission: { check: {}, limit: 5 } }))).toContain(
      'permission.limit is allowed only for operation select',
    );
    expect(
      refused({
        apiVersion: API,
        kind: 'EventTrigger',
        metadata: { name: 'two-hooks' },
        spec: { table: 'a', webhook: 'http://x', webhook_from_env: 'X', insert: { columns: '*' } },
      }),
    ).toContain('exactly one of webhook or webhook_from_env is required');
    expect(refused({ apiVersion: API, kind: 'CronTrigger', metadata: { name: 'bad-cron' }, spec: { webhook: 'http://x', schedule: '* * * *  ' } })).toContain(
      'schedule must be a cron expression of five fields',
    );
  });

  it('applies an Engine, tracked tables with a relationship and a permission, and marks them Ready', async () => {
    env.cp.apply({
      apiVersion: API,
      kind: 'Engine',
      metadata: { name: 'main', namespace: 'default' },
      // Default settings (resyncSeconds 300, pollSeconds 3): what users get.
      spec: { url: `http://127.0.0.1:${env.enginePort}`, adminSecretRef: { name: 'engine-admin' } },
    });
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        trackedTable('author', { table: 'author' }),
        trackedTable('article', { table: 'article', object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] }),
        permission('author-user-select', { table: 'author', role: 'user', operation: 'select', permission: { columns: ['id', 'name'], filter: {} } }),
      ],
    });
    for (const [plural, name] of [
      ['trackedtables', 'author'],
      ['trackedtables', 'article'],
      ['permissions', 'author-user-select'],
      ['engines', 'main'],
    ] as const) {
      const c = await readyWith(plural, name, 'True', 'Applied');
      expect(c.observedGeneration).toBe(1);
    }
    const tables = await engineTables();
    expect(tables.map((t) => t.table.name).sort()).toEqual(['article', 'author']);
    expect(tables.find((t) => t.table.name === 'author')?.select_permissions.map((p) => p.role)).toEqual(['user']);
    expect(get('trackedtables', 'author')?.metadata.finalizers).toEqual(['graphql.engine.dev/finalizer']);
    // kubectl get shows Ready and Reason columns; the category lists every kind; kubectl wait works.
    expect(env.cp.kubectl(['get', 'trackedtables.graphql.engine.dev'])).toMatch(/author\s+default\s+True\s+Applied/);
    expect(env.cp.kubectl(['get', 'graphql-engine'])).toMatch(/permission\.graphql\.engine\.dev\/author-user-select\s+user\s+select\s+True/);
    expect(env.cp.kubectl(['wait', '--for=condition=Ready', '--timeout=10s', 'trackedtables.graphql.engine.dev/article'])).toContain('condition met');
  });

  it('marks a broken Permission and a missing table False with the engine reason while the others stay Ready', async () => {
    env.cp.apply(
      permission('author-user-update', { table: 'author', role: 'user', operation: 'update', permission: { columns: ['name', 'nope'], filter: {} } }),
    );
    env.cp.apply(trackedTable('ghost', { table: 'ghost' }));
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
      const out = env.cp.kubectl(['describe', 'permissions.graphql.engine.dev', 'author-user-update']);
      return out.includes('Events:') && /Warning\s+InconsistentMetadata/.test(out) ? out : null;
    });
    expect(describe).toContain('not found in table');
  });

  it('applies an update and records the new observedGeneration', async () => {
    env.cp.apply(permission('author-user-update', { table: 'author', role: 'user', operation: 'update', permission: { columns: ['name'], filter: {} } }));
    env.cp.kubectl(['delete', 'trackedtables.graphql.engine.dev', 'ghost', '--wait=true']);
    env.cp.apply(trackedTable('author', { table: 'author', configuration: { custom_name: 'writer' } }));
    const c = await readyWith('permissions', 'author-user-update', 'True', 'Applied');
    expect(c.observedGeneration).toBe(2);
    await until(
      'custom_name in the engine',
      async () => (await engineTables()).find((t) => t.table.name === 'author')?.configuration?.['custom_name'] === 'writer',
    );
    await until('observedGeneration 2 on author', () => cond('trackedtables', 'author')?.observedGeneration === 2);
    await readyWith('engines', 'main', 'True', 'Applied');
  });

  it('removes what a deleted resource declared (policy Delete) and keeps it with policy Orphan', async () => {
    env.cp.kubectl(['delete', 'permissions.graphql.engine.dev', 'author-user-update', '--wait=true']);
    await until('update permission gone from the engine', async () => {
      const t = (await engineTables()).find((x) => x.table.name === 'author') as unknown as { update_permissions: unknown[] };
      return t.update_permissions.length === 0;
    });
    env.cp.apply(
      permission('author-user-insert', {
        table: 'author',
        role: 'user',
        operation: 'insert',
        deletionPolicy: 'Orphan',
        permission: { check: {}, columns: ['name'] },
      }),
    );
    await readyWith('permissions', 'author-user-insert', 'True', 'Applied');
    env.cp.kubectl(['delete', 'permissions.graphql.engine.dev', 'author-user-insert', '--wait=true']);
    expect(get('permissions', 'author-user-insert')).toBeNull();
    await until('insert permission no longer managed', () => !(get('engines', 'main')?.status?.managedObjects ?? ['x']).some((k) => k.includes('/insert')));
    expect((await engineTables()).find((t) => t.table.name === 'author')?.insert_permissions.map((p) => p.role)).toEqual(['user']);
  });

  it('reports an engine outage within seconds at default settings as Ready=Unknown/Reconciling (not Stalled), and recovers', async () => {
    // Nothing touches a resource: only the engine monitor's poll (pollSeconds 3) can notice.
    await env.engine.stop();
    const stopped = Date.now();
    const c = await readyWith('trackedtables', 'author', 'Unknown', 'EngineUnreachable', 20_000);
    const detectMs = Date.now() - stopped;
    expect(c.message).toContain(String(env.enginePort));
    expect(cond('trackedtables', 'author', 'Reconciling')).toMatchObject({ status: 'True', reason: 'EngineUnreachable' });
    expect(cond('trackedtables', 'author', 'Stalled')).toMatchObject({ status: 'False' });
    expect(cond('engines', 'main', 'Stalled')).toMatchObject({ status: 'False' });
    await until('an EngineUnreachable event on the Engine', () => env.events('Engine', 'main').some((e) => e.startsWith('Warning EngineUnreachable')));
    await env.restartEngine();
    const restarted = Date.now();
    await readyWith('trackedtables', 'author', 'True', 'Applied', 20_000);
    const recoverMs = Date.now() - restarted;
    await readyWith('permissions', 'author-user-select', 'True', 'Applied');
    console.log(`[k8s] outage at default settings: reported after ${detectMs} ms, recovery reported ${recoverMs} ms after the engine was back`);
    expect(detectMs).toBeLessThan(15_000);
    expect(recoverMs).toBeLessThan(15_000);
  }, 120_000);

  it('writes nothing when nothing changed, and picks up changes made while the controller was down', async () => {
    const before = (await env.client.exportMetadata()).resourceVersion;
    const rvs = ['author', 'article'].map((n) => get('trackedtables', n)?.metadata.resourceVersion);
    await new Promise((r) => setTimeout(r, 10_000)); // three polls at the default pollSeconds
    expect((await env.client.exportMetadata()).resourceVersion).toBe(before);
    expect(['author', 'article'].map((n) => get('trackedtables', n)?.metadata.resourceVersion)).toEqual(rvs);

    await env.controller.stop();
    env.cp.apply(
      permission('article-user-select', {
        table: 'article',
        role: 'user',
        operation: 'select',
        permission: { columns: '*', filter: { author: { id: { _eq: 'X-Engine-User-Id' } } } },
      }),
    );
    env.controller = startController(env.cp.operatorKubeconfig, 'controller-a');
    await readyWith('permissions', 'article-user-select', 'True', 'Applied', 60_000);
  }, 120_000);

  it('runs two replicas with one leader, and the standby takes over when the leader stops', async () => {
    const standby = startController(env.cp.operatorKubeconfig, 'controller-b');
    try {
      await until(
        'a lease holder',
        () =>
          JSON.parse(env.cp.kubectl(['get', 'lease', '-n', 'graphql-engine-system', 'graphql-engine-operator', '-o', 'json'])).spec.holderIdentity ===
          'controller-a',
      );
      await new Promise((r) => setTimeout(r, 3000));
      expect(standby.output()).not.toContain('became leader');
      await env.controller.stop(); // releases the lease
      await until('controller-b leading', () => standby.output().includes('became leader'), 30_000);
      expect(JSON.parse(env.cp.kubectl(['get', 'lease', '-n', 'graphql-engine-system', 'graphql-engine-operator', '-o', 'json'])).spec.holderIdentity).toBe(
        'controller-b',
      );
      env.cp.apply(permission('author-user-delete', { table: 'author', role: 'user', operation: 'delete', permission: { filter: {} } }));
      await readyWith('permissions', 'author-user-delete', 'True', 'Applied');
    } finally {
      env.controller = standby;
    }
  }, 90_000);

  it('keeps working across an apiserver restart (watches restart with backoff and relist)', async () => {
    // Shorter than the renew deadline the tests give the controllers (30 s), so the leader keeps
    // its lease; with the default 10 s a leader exits and its Deployment restarts it.
    await env.cp.restartApiserver(3000);
    env.cp.apply(permission('article-user-delete', { table: 'article', role: 'user', operation: 'delete', permission: { filter: {} } }));
    await readyWith('permissions', 'article-user-delete', 'True', 'Applied', 60_000);
    expect(env.controller.child.exitCode).toBeNull();
  }, 120_000);

  it('applies remote schemas, event and cron triggers and reports what the engine answered', async () => {
    env.cp.apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: API,
          kind: 'RemoteSchema',
          metadata: { name: 'countries', namespace: 'default' },
          spec: { definition: { url: 'http://127.0.0.1:9/graphql' } },
        },
        {
          apiVersion: API,
          kind: 'EventTrigger',
          metadata: { name: 'author-created', namespace: 'default' },
          spec: { table: 'author', webhook: 'http://127.0.0.1:9/hook', insert: { columns: '*' } },
        },
        {
          apiVersion: API,
          kind: 'CronTrigger',
          metadata: { name: 'nightly', namespace: 'default' },
          spec: { webhook: 'http://127.0.0.1:9/cron', schedule: '0 3 * * *' },
        },
      ],
    });
    const seen: string[] = [];
    for (const [plural, name] of [
      ['remoteschemas', 'countries'],
      ['eventtriggers', 'author-created'],
      ['crontriggers', 'nightly'],
    ] as const) {
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
    env.cp.apply({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: 40 }, (_, i) => trackedTable(`bulk-${i}`, { table: `bulk_${i}` })) });
    await until(
      'all bulk tables Ready',
      () => {
        const list = JSON.parse(env.cp.kubectl(['get', 'trackedtables.graphql.engine.dev', '-o', 'json'])) as { items: Obj[] };
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
