/**
 * Bench cell "operator": what one reconcile of an Engine costs the controller and the engine when
 * its resources include the kinds for actions, custom types, query collections (allow-listed) and
 * REST endpoints. The reconcile's engine half is run as the controller runs it (EngineClient,
 * applyDocument, foldResources) against a real engine; the Kubernetes half (watches, status
 * patches) is left out: it is the same for every kind and measured by test/k8s/scale.test.ts.
 * Figures per resource count: the pure fold (median of 5), the first apply (export, fold,
 * replace_metadata, get_inconsistent_metadata), a reconcile with nothing to write (export + fold,
 * median of 5) and the apply of one changed RestEndpoint (median of 3).
 */
import { API_VERSION } from '../../../controller/api/v1alpha1/common.ts';
import { EngineClient, applyDocument } from '../../../engine/metadata-client/client.ts';
import type { TargetResource } from '../../../controller/reconcilers/declarations.ts';
import { foldResources } from '../../../controller/reconcilers/fold.ts';
import { startEngine } from '../lib/engine.ts';
import type { CapabilityBench } from './types.ts';

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

let seq = 0;
function res(kind: string, name: string, spec: Record<string, unknown>): TargetResource {
  seq++;
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: {
      name,
      namespace: 'bench',
      uid: `uid-${kind}-${name}`,
      generation: 1,
      creationTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    },
    spec,
  };
}

/** `n` collections with their endpoints, `n / 5` actions with one custom type each, and the table they read. */
function resources(n: number, endpointUrl: (i: number) => string): TargetResource[] {
  const out = [
    res('TrackedTable', 'article', { table: 'article' }),
    res('Permission', 'article-user', { table: 'article', role: 'user', operation: 'select', permission: { columns: ['id', 'title'], filter: {} } }),
  ];
  for (let i = 0; i < n; i++) {
    out.push(
      res('QueryCollection', `c${i}`, {
        queries: [
          { name: 'one', query: `query one_${i}($id: Int!) { article_by_pk(id: $id) { id title } }` },
          { name: 'all', query: `query all_${i} { article(order_by: {id: asc}) { title } }` },
        ],
        ...(i % 2 === 0 ? { allowlist: { scope: { global: false, roles: ['user'] } } } : {}),
      }),
      res('RestEndpoint', `e${i}`, { url: endpointUrl(i), methods: ['GET'], definition: { query: { collection_name: `c${i}`, query_name: 'one' } } }),
    );
  }
  for (let i = 0; i < n / 5; i++) {
    out.push(
      res('CustomTypes', `t${i}`, { objects: [{ name: `Out${i}`, fields: [{ name: 'text', type: 'String!' }] }] }),
      res('Action', `a${i}`, {
        definition: { type: 'query', handler: 'http://127.0.0.1:9/unused', arguments: [{ name: 'x', type: 'String' }], output_type: `Out${i}` },
        permissions: [{ role: 'user' }],
      }),
    );
  }
  return out;
}

const bench: CapabilityBench = async (ctx) => {
  const counts = ctx.quick ? [20] : [100, 500];
  const rows: Record<string, string | number | null>[] = [];
  for (const n of counts) {
    const db = `operator_bench_${n}`;
    const dbUrl = await ctx.postgres.createDatabase(db);
    await ctx.postgres.sql(db, `CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL); INSERT INTO article (title) VALUES ('a'), ('b');`);
    const engine = await startEngine(dbUrl);
    try {
      const client = new EngineClient({ url: engine.url, timeoutMs: 120_000 });
      let managed: readonly string[] = [];
      let current = resources(n, (i) => `c${i}/:id`);
      const fold = (doc: Parameters<typeof foldResources>[0]['current']): ReturnType<typeof foldResources> =>
        foldResources({ current: doc, resources: current, previousManaged: managed, policy: 'Merge' });

      const exported = await client.exportMetadata();
      const foldMs: number[] = [];
      for (let r = 0; r < 5; r++) {
        const t = performance.now();
        fold(exported.metadata);
        foldMs.push(performance.now() - t);
      }

      let t = performance.now();
      const first = await applyDocument(client, (c) => fold(c.metadata));
      const report = await client.getInconsistentMetadata();
      const firstMs = performance.now() - t;
      managed = first.built.managed;
      if (!first.wrote || report.inconsistentObjects.length > 0) {
        throw new Error(`first apply: wrote ${first.wrote}, inconsistent ${JSON.stringify(report.inconsistentObjects.slice(0, 3))}`);
      }
      const answer = await fetch(`${engine.url}/api/rest/c${n - 1}/2`);
      const body = await answer.text();
      if (answer.status !== 200 || !body.includes('"b"')) throw new Error(`endpoint c${n - 1}: ${answer.status} ${body}`);

      const steadyMs: number[] = [];
      for (let r = 0; r < 5; r++) {
        t = performance.now();
        const again = await applyDocument(client, (c) => fold(c.metadata));
        steadyMs.push(performance.now() - t);
        if (again.wrote) throw new Error('a reconcile with nothing changed wrote to the engine');
      }

      const changeMs: number[] = [];
      for (let r = 0; r < 3; r++) {
        current = resources(n, (i) => (i === 0 ? `moved${r}/:id` : `c${i}/:id`));
        t = performance.now();
        const changed = await applyDocument(client, (c) => fold(c.metadata));
        await client.getInconsistentMetadata();
        changeMs.push(performance.now() - t);
        if (!changed.wrote || changed.built.diff.changed.join() !== 'rest_endpoint/e0') throw new Error(`one change: ${JSON.stringify(changed.built.diff)}`);
        managed = changed.built.managed;
      }
      const kinds = current.length;
      ctx.log(`${n} collections: fold ${median(foldMs).toFixed(1)} ms, first apply ${firstMs.toFixed(0)} ms`);
      rows.push({
        resources: kinds,
        'metadata objects': managed.length,
        'fold ms (median)': Number(median(foldMs).toFixed(1)),
        'first apply ms': Math.round(firstMs),
        'nothing to write ms (median)': Math.round(median(steadyMs)),
        'one endpoint changed ms (median)': Math.round(median(changeMs)),
      });
    } finally {
      await engine.stop();
    }
  }
  return {
    tables: [{ title: 'Reconcile of one Engine with query collections, REST endpoints, actions and custom types', rows }],
    notes: [
      'Resources per count n: a TrackedTable, a Permission, n QueryCollections (2 queries, every other one allow-listed for role user), n RestEndpoints, n/5 CustomTypes and n/5 Actions (each with a permission).',
      'The controller code runs in the bench process against a real engine (no admin secret); Kubernetes watches and status writes are not included.',
      '"first apply" and "one endpoint changed" include the engine validating every stored query against its schema (replace_metadata) and get_inconsistent_metadata.',
    ],
  };
};

export default bench;
