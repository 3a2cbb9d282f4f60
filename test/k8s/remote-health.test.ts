/**
 * Issue 36.5 on a REAL kube-apiserver + etcd and a real engine: a remote schema that goes down
 * while the engine runs (after the engine introspected it, so get_inconsistent_metadata still
 * lists it consistent) is noticed through the engine's probe (`/readyz?remotes=true`, read every
 * remoteCheckSeconds) and reported on the RemoteSchema as RemoteUnavailable (Reconciling, not
 * Stalled), and heals when the remote answers again; the engine's metadata (resource_version) and
 * schema do not change meanwhile. The remote is a real HTTP GraphQL server, stopped and started again on its port.
 * A source whose database goes away is noticed through the engine's /readyz (a real PostgreSQL
 * behind a TCP forwarder that is stopped, dropping its connections, and started again).
 * Its own control plane; the tests run in order.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/engine-process.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../support/pg.ts';
import { ADMIN_SECRET, k8sSkipReason, resource, startOperatorEnv, type OperatorEnv } from './harness.ts';

const skipReason = k8sSkipReason();

/** A TCP forwarder on a fixed port; `down` also cuts the open connections (a database that went away). */
function forwarder(port: number, toHost: string, toPort: number): { up(): Promise<void>; down(): Promise<void> } {
  let server: Server | null = null;
  const open = new Set<Socket>();
  return {
    async up() {
      server = createServer((sock) => {
        const out = connect(toPort, toHost);
        open.add(sock).add(out);
        sock.pipe(out).pipe(sock);
        const end = (): void => {
          sock.destroy();
          out.destroy();
          open.delete(sock);
          open.delete(out);
        };
        sock.on('error', end).on('close', end);
        out.on('error', end).on('close', end);
      });
      await new Promise<void>((r) => server?.listen(port, '127.0.0.1', r));
    },
    async down() {
      const s = server;
      server = null;
      for (const c of open) c.destroy();
      open.clear();
      if (s !== null) await new Promise<void>((r) => s.close(() => r()));
    },
  };
}

describe.skipIf(skipReason !== null)(
  'operator noticing a remote schema that dies while the engine runs, on a real kube-apiserver',
  { timeout: 180_000 },
  () => {
    let env: OperatorEnv;
    let remote: GraphqlTestServer | null = null;
    let remotePort: number;
    let shopDb: TestDatabase | undefined;
    const startRemote = async (): Promise<GraphqlTestServer> =>
      await startGraphqlServer('type Query { weather: String }', { weather: () => 'sunny' }, remotePort);
    const weather = async (): Promise<unknown> => {
      const r = await fetch(`http://127.0.0.1:${env.enginePort}/v1/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-engine-admin-secret': ADMIN_SECRET },
        body: JSON.stringify({ query: '{ weather }' }),
      });
      return await r.json();
    };

    beforeAll(async () => {
      remotePort = await freePort();
      remote = await startRemote();
      env = await startOperatorEnv('k8s_rhealth', 'CREATE TABLE city (id serial PRIMARY KEY, name text);');
    }, 180_000);

    afterAll(async () => {
      await env?.stop();
      await remote?.close();
      await shopDb?.drop();
    });

    it('reports a remote that stopped answering as RemoteUnavailable within seconds, and Ready again once it is back', async () => {
      env.cp.apply(resource('Engine', 'main', { url: `http://127.0.0.1:${env.enginePort}`, adminSecretRef: { name: 'engine-admin' }, remoteCheckSeconds: 2 }));
      env.cp.apply(resource('RemoteSchema', 'weather', { definition: { url: `http://127.0.0.1:${remotePort}/graphql` } }));
      env.cp.apply(resource('TrackedTable', 'city', { table: 'city' }));
      await env.readyWith('remoteschemas', 'weather', 'True', 'Applied', 60_000);
      await env.readyWith('engines', 'main', 'True', 'Applied', 60_000);
      expect(await weather()).toEqual({ data: { weather: 'sunny' } });
      const rv = (await env.client.getState()).resourceVersion;

      // The remote dies. The engine's own list still says every object is consistent: only its probe can tell.
      await remote?.close();
      remote = null;
      const died = Date.now();
      expect((await env.client.getInconsistentMetadata()).isConsistent).toBe(true);
      const down = await env.readyWith('remoteschemas', 'weather', 'False', 'RemoteUnavailable', 30_000);
      const noticedMs = Date.now() - died;
      console.log(`[k8s] remote died: RemoteUnavailable on the RemoteSchema ${noticedMs} ms after it stopped (remoteCheckSeconds 2)`);
      expect(down.message).toContain('weather');
      // The engine's own error, and no reload: it heals by itself.
      expect(down.message).toContain("could not reach the remote schema (the engine's readiness check: could not reach the remote schema at http://127.0.0.1:");
      expect(down.message).toContain('ECONNREFUSED');
      expect(down.message).toContain('Ready again once it answers');
      expect(env.cond('remoteschemas', 'weather', 'Reconciling')).toMatchObject({ status: 'True', reason: 'RemoteUnavailable' });
      expect(env.cond('remoteschemas', 'weather', 'Stalled')?.status).toBe('False');
      // What does not depend on it stays Ready; the Engine is Reconciling, not Stalled.
      expect(env.cond('trackedtables', 'city')?.status).toBe('True');
      const engine = await env.readyWith('engines', 'main', 'False', 'RemoteUnavailable', 20_000);
      // The probe found it and nothing is reloaded: the Engine says so, not "reloading with backoff".
      expect(engine.message).toContain("1 remote schema unreachable per the engine's remote probe (/readyz?remotes=true); not reloaded");
      expect(engine.message).not.toContain('reloading');
      expect(env.cond('engines', 'main', 'Stalled')?.status).toBe('False');
      expect(env.events('RemoteSchema', 'weather').some((e) => e.startsWith('Warning RemoteUnavailable'))).toBe(true);
      // Checking changed nothing in the engine: the metadata is the same, the remote's field is still
      // in the schema (a query through it fails at run time, not validation), the engine lists nothing.
      expect((await env.client.getState()).resourceVersion).toBe(rv);
      expect((await env.client.getInconsistentMetadata()).isConsistent).toBe(true);
      const through = (await weather()) as { errors?: { extensions?: { code?: string } }[] };
      expect(through.errors?.[0]?.extensions?.code).toBeDefined();
      expect(through.errors?.[0]?.extensions?.code).not.toBe('validation-failed');

      // It comes back on the same port: the next probe finds it, the status heals, queries work.
      remote = await startRemote();
      const back = Date.now();
      await env.readyWith('remoteschemas', 'weather', 'True', 'Applied', 90_000);
      const healedMs = Date.now() - back;
      console.log(`[k8s] remote back: Ready ${healedMs} ms after it answers again`);
      await env.readyWith('engines', 'main', 'True', 'Applied', 20_000);
      expect(await weather()).toEqual({ data: { weather: 'sunny' } });
      // Still not one write to the engine's metadata, and no drift.
      expect((await env.client.getState()).resourceVersion).toBe(rv);
      expect(env.events('Engine', 'main').filter((e) => e.includes('DriftCorrected'))).toEqual([]);
    });

    it('reloads with backoff a remote the engine holds inconsistent (it was down when the engine rebuilt), and heals once it is back', async () => {
      await env.readyWith('remoteschemas', 'weather', 'True', 'Applied', 30_000);
      await remote?.close();
      remote = null;
      // As an engine restarted while the remote is down: its introspection fails, the engine lists it.
      await env.client.call({ type: 'reload_metadata', args: { reload_remote_schemas: true, reload_sources: false } });
      expect((await env.client.getInconsistentMetadata()).inconsistentObjects.map((o) => o.type)).toEqual(['remote_schema']);
      const down = await env.readyWith('remoteschemas', 'weather', 'False', 'RemoteUnavailable', 30_000);
      // The engine's own inconsistency, not the probe's: the controller reloads it.
      expect(down.message).toContain('reloads it with backoff');
      expect(down.message).not.toContain("the engine's readiness check");
      expect(env.cond('remoteschemas', 'weather', 'Stalled')?.status).toBe('False');
      // The Engine says it reloads it (its probe may have spoken first, before the engine listed it).
      const engine = await env.until(
        'Engine main RemoteUnavailable, reloading',
        () => {
          const c = env.cond('engines', 'main');
          return c?.reason === 'RemoteUnavailable' && c.message.includes('reloading with backoff') ? c : null;
        },
        20_000,
      );
      expect(engine.message).toContain('1 remote schema or source could not be reached; reloading with backoff');
      expect(engine.message).not.toContain('remote probe');

      remote = await startRemote();
      const back = Date.now();
      await env.readyWith('remoteschemas', 'weather', 'True', 'Applied', 90_000);
      console.log(`[k8s] inconsistent remote back: Ready ${Date.now() - back} ms after it answers again (backoff reload)`);
      expect((await env.client.getInconsistentMetadata()).isConsistent).toBe(true);
      expect(await weather()).toEqual({ data: { weather: 'sunny' } });
      await env.readyWith('engines', 'main', 'True', 'Applied', 20_000);
    });

    it("reports a source whose database went away as RemoteUnavailable through the engine's readiness, with what lives in it, and Ready once it is back", async () => {
      shopDb = await createTestDatabase('k8s_rh_shop');
      await shopDb.sql('CREATE TABLE item (id serial PRIMARY KEY, label text)');
      const target = new URL(shopDb.url);
      const port = await freePort();
      const fwd = forwarder(port, target.hostname, Number(target.port));
      await fwd.up();
      const viaForwarder = new URL(shopDb.url);
      viaForwarder.host = `127.0.0.1:${port}`;
      env.cp.apply(resource('Source', 'shop', { kind: 'postgres', configuration: { connection_info: { database_url: viaForwarder.toString() } } }));
      env.cp.apply(resource('TrackedTable', 'item', { source: 'shop', table: 'item' }));
      await env.readyWith('sources', 'shop', 'True', 'Applied', 60_000);
      await env.readyWith('trackedtables', 'item', 'True', 'Applied', 30_000);

      await fwd.down();
      const died = Date.now();
      const down = await env.readyWith('sources', 'shop', 'False', 'RemoteUnavailable', 30_000);
      console.log(`[k8s] source died: RemoteUnavailable on the Source ${Date.now() - died} ms after its database went away`);
      expect(down.message).toContain("could not reach the source (the engine's readiness check:");
      expect(down.message).toContain('Ready again once it answers');
      expect(env.cond('sources', 'shop', 'Stalled')?.status).toBe('False');
      const item = await env.readyWith('trackedtables', 'item', 'False', 'RemoteUnavailable', 20_000);
      expect(item.message).toContain('depends on an inconsistent object: source shop: could not reach the source');
      expect(env.cond('trackedtables', 'item', 'Stalled')?.status).toBe('False');
      expect(env.cond('trackedtables', 'city')?.status).toBe('True');
      const engine = await env.readyWith('engines', 'main', 'False', 'RemoteUnavailable', 20_000);
      expect(engine.message).toContain("1 source unreachable per the engine's readiness ping; not reloaded");

      await fwd.up();
      const back = Date.now();
      await env.readyWith('sources', 'shop', 'True', 'Applied', 60_000);
      await env.readyWith('trackedtables', 'item', 'True', 'Applied', 30_000);
      console.log(`[k8s] source back: Ready ${Date.now() - back} ms after its database answers again`);
      await env.readyWith('engines', 'main', 'True', 'Applied', 20_000);
      await fwd.down();
    });
  },
);
