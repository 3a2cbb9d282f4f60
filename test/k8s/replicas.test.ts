/**
 * The operator's third round on a REAL kube-apiserver + etcd (issue 36, points 4 and 5): an engine
 * with two replicas behind a Service (two real engine processes on one metadata database, found
 * through EndpointSlices) is checked replica by replica, and a remote schema that was down when
 * the engine built is reloaded with backoff and reported as Reconciling, not Stalled.
 * Its own control plane; the tests run in order.
 */
import { createServer, connect, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/engine-process.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../support/graphql-server.ts';
import { ADMIN_SECRET, k8sSkipReason, resource, startOperatorEnv, type OperatorEnv } from './harness.ts';
import { startEngineAt, type Proc } from './processes.ts';

const skipReason = k8sSkipReason();

/**
 * An address of this machine that an EndpointSlice accepts (the apiserver refuses loopback ones);
 * the engines listen on every address.
 */
const hostIp = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

/** A TCP forwarder on a fixed port that can be stopped and started again (a remote that goes down and comes back). */
async function forwarder(port: number, to: number): Promise<{ up(): Promise<void>; down(): Promise<void> }> {
  let server: Server | null = null;
  const f = {
    async up() {
      server = createServer((sock) => {
        const out = connect(to, '127.0.0.1');
        sock.pipe(out).pipe(sock);
        const end = (): void => {
          sock.destroy();
          out.destroy();
        };
        sock.on('error', end);
        out.on('error', end);
      });
      await new Promise<void>((r) => server?.listen(port, '127.0.0.1', r));
    },
    async down() {
      const s = server;
      server = null;
      if (s !== null) await new Promise<void>((r) => s.close(() => r()));
    },
  };
  return f;
}

describe.skipIf(skipReason !== null || hostIp === undefined)('operator with engine replicas and remotes on a real kube-apiserver', { timeout: 120_000 }, () => {
  let env: OperatorEnv;
  let remote: GraphqlTestServer;
  let replicaB: Proc;
  let portB: number;
  const engineArgs = (): string[] => ['--database-url', env.db.url, '--admin-secret', ADMIN_SECRET, '--server-host', '0.0.0.0'];
  const slice = (name: string, port: number): Record<string, unknown> => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': 'engine' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port, protocol: 'TCP' }],
    endpoints: [{ addresses: [hostIp ?? ''], conditions: { ready: true } }],
  });

  beforeAll(async () => {
    remote = await startGraphqlServer('type Query { weather: String }', { weather: () => 'sunny' });
    env = await startOperatorEnv(
      'k8s_repl',
      'CREATE TABLE city (id serial PRIMARY KEY, name text);',
      {},
      { args: ['--server-host', '0.0.0.0'], env: { WEATHER_URL: remote.url } },
    );
    portB = await freePort();
    // Replica B cannot reach the remote (a network policy, a DNS difference): only it says so.
    replicaB = await startEngineAt(portB, engineArgs(), { WEATHER_URL: 'http://127.0.0.1:9/graphql' });
  }, 180_000);

  afterAll(async () => {
    await replicaB?.stop();
    await env?.stop();
    await remote?.close();
  });

  it('asks every replica behind the Service, and shows what only one replica lists inconsistent', async () => {
    env.cp.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'engine', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 8080 }] } });
    env.cp.apply(slice('engine-a', env.enginePort));
    env.cp.apply(slice('engine-b', portB));
    env.cp.apply(resource('Engine', 'main', { serviceRef: { name: 'engine', port: 8080 }, adminSecretRef: { name: 'engine-admin' } }));
    env.cp.apply(resource('TrackedTable', 'city', { table: 'city' }));
    env.cp.apply(resource('RemoteSchema', 'weather', { definition: { url_from_env: 'WEATHER_URL' } }));
    await env.readyWith('trackedtables', 'city', 'True', 'Applied', 60_000);
    const c = await env.readyWith('remoteschemas', 'weather', 'False', undefined, 60_000);
    expect(c.message).toContain(`on 1 of 2 replicas: http://${hostIp}:${portB}`);
    expect(c.message).toContain('could not reach the remote schema');
    // Replica A itself lists nothing: asking only one replica could not have seen this.
    expect((await env.client.getInconsistentMetadata()).isConsistent).toBe(true);

    // The fix reaches replica B (restarted with the right environment): the status follows within seconds.
    await replicaB.stop();
    const stopped = Date.now();
    // Health of every replica: the one that stopped answering is named.
    await env.until('the Engine to name the replica that does not answer', () =>
      env.cond('engines', 'main')?.message.endsWith(`on 1 of 2 replicas; http://${hostIp}:${portB} did not answer`),
    );
    console.log(`[k8s] replicas: a stopped replica named ${Date.now() - stopped} ms after it stopped`);
    replicaB = await startEngineAt(portB, engineArgs(), { WEATHER_URL: remote.url });
    const fixed = Date.now();
    await env.until('the Engine consistent on both replicas', () =>
      env.cond('engines', 'main')?.message === '2 resources applied; metadata consistent on 2 replicas' ? true : null,
    );
    const ms = Date.now() - fixed;
    console.log(`[k8s] replicas: the fixed replica counted ${ms} ms after it answers`);
    expect(ms).toBeLessThan(20_000);
    expect(env.cond('remoteschemas', 'weather')).toMatchObject({ status: 'True', reason: 'Applied' });
  });

  it('reloads a remote schema that was down with backoff, reporting Reconciling rather than Stalled, and is Ready once it answers', async () => {
    // Both replicas find it down; each one that lists it is reloaded.
    const forecast = await startGraphqlServer('type Query { forecast: String }', { forecast: () => 'rain' });
    const port = await freePort();
    const fwd = await forwarder(port, Number(new URL(forecast.url).port));
    const path = new URL(forecast.url).pathname;
    env.cp.apply(resource('RemoteSchema', 'forecast', { definition: { url: `http://127.0.0.1:${port}${path}` } }));
    const down = await env.readyWith('remoteschemas', 'forecast', 'False', 'RemoteUnavailable', 60_000);
    expect(down.message).toContain('could not reach the remote schema');
    expect(env.cond('remoteschemas', 'forecast', 'Stalled')?.status).toBe('False');
    expect(env.cond('remoteschemas', 'forecast', 'Reconciling')?.status).toBe('True');
    await fwd.up();
    const up = Date.now();
    await env.readyWith('remoteschemas', 'forecast', 'True', 'Applied', 90_000);
    console.log(`[k8s] remote that comes back: Ready ${Date.now() - up} ms after it answers`);
    expect(env.cond('engines', 'main')?.message).toBe('3 resources applied; metadata consistent on 2 replicas');
    expect(Date.now() - up).toBeLessThan(65_000);
    await fwd.down();
    await forecast.close();
  });
});
