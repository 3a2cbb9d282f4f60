/**
 * Issue 36.7 on a REAL kube-apiserver + etcd and a real engine: the Engine's health counts only
 * what it manages; `managementPolicy: Exclusive` keeps the source its own TrackedTables need; a
 * rollout that is waited for sends no PATCH (counted in the apiserver's audit log); an Engine with
 * `deletionPolicy: Delete` whose engine never came up can be deleted; and the namespaced install
 * applies with `kubectl apply -k config/namespaced -n team-a`.
 * Its own control plane; the tests run in order.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/engine-process.ts';
import type { AuditEvent } from './control-plane.ts';
import { k8sSkipReason, resource, startOperatorEnv, type OperatorEnv } from './harness.ts';

const skipReason = k8sSkipReason();
const OPERATOR = 'system:serviceaccount:graphql-engine-system:graphql-engine-operator';

describe.skipIf(skipReason !== null)('operator details on a real kube-apiserver (issue 36.7)', { timeout: 180_000 }, () => {
  let env: OperatorEnv;
  const eventsIn = (ns: string, kind: string, name: string): string[] =>
    (
      JSON.parse(env.cp.kubectl(['-n', ns, 'get', 'events', '-o', 'json', '--field-selector', `involvedObject.kind=${kind},involvedObject.name=${name}`])) as {
        items: { type: string; reason: string; message: string }[];
      }
    ).items.map((e) => `${e.type} ${e.reason} ${e.message}`);
  const tables = async (): Promise<string[]> =>
    ((await env.client.exportMetadata()).metadata.sources.find((s) => s.name === 'default')?.tables ?? []).map((t) => t.table.name).sort();

  beforeAll(async () => {
    env = await startOperatorEnv(
      'k8s_details',
      `CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
       CREATE TABLE other (id serial PRIMARY KEY);`,
    );
  }, 180_000);

  afterAll(async () => {
    await env?.stop();
  });

  it("counts only the inconsistencies of what the Engine manages in the Engine's health", async () => {
    env.cp.apply(resource('Engine', 'main', { url: `http://127.0.0.1:${env.enginePort}`, adminSecretRef: { name: 'engine-admin' } }));
    env.cp.apply(resource('TrackedTable', 'author', { table: 'author' }));
    await env.readyWith('trackedtables', 'author', 'True', 'Applied', 60_000);
    await env.readyWith('engines', 'main', 'True', 'Applied', 30_000);
    // Someone tracks a table by hand, and another one that does not exist (inconsistent).
    await env.client.call({ type: 'pg_track_table', args: { source: 'default', table: 'other' } });
    const exported = await env.client.exportMetadata();
    const doc = exported.metadata;
    const sources = doc.sources.map((s) =>
      s.name === 'default' ? { ...s, tables: [...s.tables, { ...s.tables[0], table: { schema: 'public', name: 'ghost' } }] } : s,
    );
    const report = await env.client.replaceMetadata({ ...doc, sources } as typeof doc, exported.resourceVersion);
    expect(report.inconsistentObjects.map((o) => o.name)).toEqual(['table ghost in source default']);
    const c = await env.until('the Engine to see the hand-made inconsistency', () => {
      const r = env.cond('engines', 'main');
      return r?.message.includes('not counted') === true ? r : null;
    });
    expect(c).toMatchObject({ status: 'True', reason: 'Applied' });
    expect(c.message).toBe('1 resources applied; metadata consistent; 1 inconsistent objects that no resource of this Engine declares are not counted');
    expect(env.cond('engines', 'main', 'Stalled')?.status).toBe('False');
    expect((env.get('engines', 'main')?.status as { inconsistentObjects?: number }).inconsistentObjects).toBe(0);
    expect(env.cond('trackedtables', 'author')?.status).toBe('True');
  });

  it('under managementPolicy Exclusive keeps the source its TrackedTables need and removes only the undeclared tables', async () => {
    env.cp.kubectl(['annotate', 'engines.graphql.engine.dev', 'main', 'graphql.engine.dev/dry-run=true']);
    env.cp.kubectl(['patch', 'engines.graphql.engine.dev', 'main', '--type=merge', '-p', '{"spec":{"managementPolicy":"Exclusive"}}']);
    const dry = await env.readyWith('engines', 'main', 'False', 'DryRun', 30_000);
    expect(dry.message).toContain('applying would make 2 changes');
    expect((env.get('engines', 'main')?.status?.plannedChanges ?? []).sort()).toEqual(['- table/default/public.ghost', '- table/default/public.other']);
    // Nothing is written under a dry run.
    expect(await tables()).toEqual(['author', 'ghost', 'other']);

    env.cp.kubectl(['annotate', 'engines.graphql.engine.dev', 'main', 'graphql.engine.dev/dry-run-']);
    await env.until('the undeclared tables removed', async () => ((await tables()).join() === 'author' ? true : null));
    const after = await env.client.exportMetadata();
    expect(after.metadata.sources.map((s) => s.name)).toEqual(['default']);
    await env.readyWith('engines', 'main', 'True', 'Applied', 30_000);
    expect(env.cond('engines', 'main')?.message).toBe('1 resources applied; metadata consistent');
    expect(env.cond('trackedtables', 'author')).toMatchObject({ status: 'True', reason: 'Applied' });
    expect(env.events('Engine', 'main').some((e) => e.includes('Removed from the engine:') && e.includes('source/default'))).toBe(false);
  });

  it('sends no PATCH while it waits for a rollout, re-applies a Deployment edited by someone else, and deletes an Engine whose engine never came up', async () => {
    env.cp.kubectl(['create', 'namespace', 'team-r']);
    env.cp.apply(
      resource('Engine', 'shop', { deployment: { version: '1.0.0', replicas: 2, databaseUrlSecretRef: { name: 'db' } }, deletionPolicy: 'Delete' }, 'team-r'),
    );
    env.cp.apply(resource('TrackedTable', 'orders', { table: 'orders' }, 'team-r'));
    await env.until('Engine shop waiting for its rollout', () => env.readyIn('team-r', 'engines', 'shop')?.reason === 'EngineNotAvailable');
    // Its resources say so too (then nothing of theirs is written again while it waits).
    await env.until('orders waiting for the rollout', () => env.readyIn('team-r', 'trackedtables', 'orders')?.reason === 'EngineNotAvailable');
    const mine = (e: AuditEvent): boolean => e.user.username === OPERATOR && e.objectRef?.namespace === 'team-r';
    const looks = (events: AuditEvent[]): number =>
      events.filter((e) => mine(e) && e.objectRef?.resource === 'deployments' && e.objectRef.name === 'shop' && (e.verb === 'get' || e.verb === 'patch'))
        .length;
    const start = env.cp.audit().length;
    // Three more looks at the rollout (every 3 s), whatever they are.
    await env.until('three more looks at the rollout', () => (looks(env.cp.audit().slice(start)) >= 3 ? true : null), 30_000);
    const window = env.cp.audit().slice(start).filter(mine);
    console.log(`[k8s] rollout wait: ${looks(window)} looks at the Deployment, ${window.filter((e) => e.verb === 'patch').length} PATCHes by the operator`);
    expect(window.filter((e) => e.verb === 'patch').map((e) => `${e.objectRef?.resource}/${e.objectRef?.subresource ?? ''}`)).toEqual([]);

    // Someone scales the Deployment by hand: the operator applies its spec again.
    env.cp.kubectl(['-n', 'team-r', 'scale', 'deployment', 'shop', '--replicas=5']);
    await env.until('the Deployment back at 2 replicas', () =>
      env.cp.kubectl(['-n', 'team-r', 'get', 'deployment', 'shop', '-o', 'jsonpath={.spec.replicas}']) === '2' ? true : null,
    );

    // Nothing of orders was ever applied: deleting it does not wait for an engine that is not there.
    env.cp.kubectl(['-n', 'team-r', 'delete', 'trackedtables.graphql.engine.dev', 'orders', '--wait=true', '--timeout=30s']);
    expect(eventsIn('team-r', 'TrackedTable', 'orders').some((e) => e.startsWith('Normal Deleted Nothing this resource declares was applied'))).toBe(true);

    // Its engine never came up: deleting it (deletionPolicy Delete) still completes.
    env.cp.kubectl(['-n', 'team-r', 'delete', 'engines.graphql.engine.dev', 'shop', '--wait=true', '--timeout=30s']);
    expect(eventsIn('team-r', 'Engine', 'shop').some((e) => e.startsWith('Warning NothingRemoved') && e.includes('nothing could be removed'))).toBe(true);
  });

  it('deletes an Engine with deletionPolicy Delete whose url never answered', async () => {
    env.cp.kubectl(['create', 'namespace', 'team-x']);
    const dead = await freePort();
    env.cp.apply(resource('Engine', 'never', { url: `http://127.0.0.1:${dead}`, deletionPolicy: 'Delete' }, 'team-x'));
    await env.until('Engine never unreachable', () => env.readyIn('team-x', 'engines', 'never')?.reason === 'EngineUnreachable');
    const started = Date.now();
    env.cp.kubectl(['-n', 'team-x', 'delete', 'engines.graphql.engine.dev', 'never', '--wait=true', '--timeout=30s']);
    console.log(`[k8s] Engine whose engine never answered deleted in ${Date.now() - started} ms`);
    const ev = eventsIn('team-x', 'Engine', 'never').find((e) => e.startsWith('Warning NothingRemoved'));
    expect(ev).toContain('this Engine manages no metadata in it (it never reached it), so nothing could be removed');
  });

  it('describes every field in kubectl explain, from the table crds/fields.md is rendered from', () => {
    const explain = (field: string): string => env.cp.kubectl(['explain', field]);
    for (const [field, text] of [
      ['trackedtables.spec.object_relationships.using.manual_configuration.insertion_order', 'before_parent or after_parent'],
      ['trackedtables.spec.configuration.custom_root_fields.select_by_pk.name', 'GraphQL name of this root field.'],
      ['trackedtables.spec.is_enum', 'Expose the table as a GraphQL enum'],
      ['permissions.spec.permission.filter', 'Boolean expression the rows must satisfy'],
      ['remoteschemas.spec.definition.headers.value_from_env', "Name of an environment variable of the engine that holds the header's value."],
      ['engines.spec.remoteCheckSeconds', "Probe the remote schemas this often through every replica's /readyz?remotes=true"],
      ['customtypes.spec.engineRef.name', 'Name of the Engine resource in this namespace.'],
    ] as const) {
      expect(explain(field).replace(/\s+/g, ' '), field).toContain(text);
    }
  });

  it('installs the namespaced operator with kubectl apply -k config/namespaced -n team-a, bound to that namespace only', () => {
    env.cp.kubectl(['create', 'namespace', 'team-a']);
    const out = env.cp.kubectl(['apply', '-k', 'config/namespaced', '-n', 'team-a']);
    expect(out).toContain('deployment.apps/graphql-engine-operator created');
    const deployed = JSON.parse(env.cp.kubectl(['-n', 'team-a', 'get', 'deployment', 'graphql-engine-operator', '-o', 'json'])) as {
      spec: { template: { spec: { serviceAccountName: string; containers: { env: { name: string }[] }[] } } };
    };
    expect(deployed.spec.template.spec.serviceAccountName).toBe('graphql-engine-operator');
    expect(deployed.spec.template.spec.containers[0]?.env.map((e) => e.name)).toContain('WATCH_NAMESPACE');
    env.cp.kubectl(['-n', 'team-a', 'get', 'service', 'graphql-engine-operator-metrics']);
    const can = (verb: string, what: string, ns: string, ...more: string[]): string => {
      const r = spawnSync(
        process.env['KUBECTL'] ?? 'kubectl',
        ['--kubeconfig', env.cp.kubeconfig, 'auth', 'can-i', verb, what, '-n', ns, '--as', 'system:serviceaccount:team-a:graphql-engine-operator', ...more],
        { encoding: 'utf8' },
      );
      return r.stdout.trim();
    };
    // The RoleBinding's ServiceAccount is the one in team-a, and the Role holds only there.
    expect(can('list', 'trackedtables.graphql.engine.dev', 'team-a')).toBe('yes');
    expect(can('get', 'secrets', 'team-a')).toBe('yes');
    expect(can('patch', 'engines.graphql.engine.dev', 'team-a', '--subresource=status')).toBe('yes');
    expect(can('list', 'trackedtables.graphql.engine.dev', 'default')).toBe('no');
    // Applying it again changes nothing.
    expect(env.cp.kubectl(['apply', '-k', 'config/namespaced', '-n', 'team-a'])).not.toContain('created');
  });
});
