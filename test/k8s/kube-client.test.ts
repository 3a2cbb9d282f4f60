/**
 * The controller's Kubernetes client on a REAL kube-apiserver (issue 36, point 8): the controller
 * process runs with KUBECONFIG naming two files merged as kubectl merges them, whose user is an
 * exec credential plugin (a real script printing the control plane's token, which expires after a
 * few seconds) and whose cluster is reached through an HTTP CONNECT proxy (`proxy-url`). It must
 * win the leader Lease through both and keep renewing it after the plugin's token expired.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConnectProxy, type ConnectProxy } from '../support/connect-proxy.ts';
import { eventually, eventuallyValue } from '../support/eventually.ts';
import { startControlPlane, type ControlPlane } from './control-plane.ts';
import { k8sSkipReason } from './harness.ts';
import { startController, type Proc } from './processes.ts';

const skipReason = k8sSkipReason();

describe.skipIf(skipReason !== null)('the controller through an exec plugin and a proxy on a real kube-apiserver', { timeout: 120_000 }, () => {
  let cp: ControlPlane;
  let proxy: ConnectProxy;
  let controller: Proc | undefined;
  let dir: string;

  beforeAll(async () => {
    cp = await startControlPlane();
    proxy = await startConnectProxy();
    cp.kubectl(['create', 'namespace', 'graphql-engine-system']);
    dir = mkdtempSync(path.join(tmpdir(), 'kube-client-'));
  }, 180_000);

  afterAll(async () => {
    await controller?.stop();
    await proxy?.close();
    await cp?.stop();
  });

  const runs = (): number => {
    try {
      return Number(readFileSync(path.join(dir, 'runs'), 'utf8'));
    } catch {
      return 0;
    }
  };
  const lease = (): { holderIdentity?: string; renewTime?: string } | undefined => {
    try {
      return (
        JSON.parse(cp.kubectl(['-n', 'graphql-engine-system', 'get', 'lease', 'graphql-engine-operator', '-o', 'json'])) as {
          spec: { holderIdentity?: string; renewTime?: string };
        }
      ).spec;
    } catch {
      return undefined;
    }
  };
  const controllerLog = (): string => controller?.output().slice(-3000) ?? '';

  it('wins and keeps renewing the leader Lease, re-running the plugin after its token expires', async () => {
    writeFileSync(
      path.join(dir, 'plugin.mjs'),
      `import { readFileSync, writeFileSync } from 'node:fs';
const dir = ${JSON.stringify(dir)};
let n = 0;
try { n = Number(readFileSync(dir + '/runs', 'utf8')); } catch {}
writeFileSync(dir + '/runs', String(n + 1));
const expirationTimestamp = new Date(Date.now() + 4000).toISOString();
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: ${JSON.stringify(cp.token)}, expirationTimestamp } }));
`,
    );
    writeFileSync(path.join(dir, 'plugin.sh'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(dir, 'plugin.mjs'))}\n`);
    chmodSync(path.join(dir, 'plugin.sh'), 0o755);
    // users.yaml: the exec user and the current context; cluster.yaml: the cluster (behind the
    // proxy), a user of the same name that must lose (first file wins), another current-context.
    writeFileSync(
      path.join(dir, 'users.yaml'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'via-plugin',
        contexts: [{ name: 'via-plugin', context: { cluster: 'test', user: 'plugin-user', namespace: 'default' } }],
        users: [{ name: 'plugin-user', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './plugin.sh', interactiveMode: 'Never' } } }],
      }),
    );
    writeFileSync(
      path.join(dir, 'cluster.yaml'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'other',
        clusters: [{ name: 'test', cluster: { server: cp.server, 'insecure-skip-tls-verify': true, 'proxy-url': proxy.url } }],
        users: [{ name: 'plugin-user', user: { token: 'not-this-one' } }],
      }),
    );
    controller = startController([path.join(dir, 'users.yaml'), path.join(dir, 'cluster.yaml')].join(path.delimiter), 'exec-replica', {
      RETRY_PERIOD_MS: '1000',
    });
    await eventually(() => lease()?.holderIdentity === 'exec-replica', { what: 'the Lease held by the controller', context: controllerLog });
    expect(runs()).toBeGreaterThanOrEqual(1);
    const port = new URL(cp.server).port;
    expect(proxy.connects.some((c) => c === `127.0.0.1:${port}`)).toBe(true);
    expect(controller.output()).toContain(`"via":"${proxy.url}"`);

    // The token expires after 4 s; renewals go on with a fresh one from a new plugin run.
    const firstRuns = runs();
    await eventually(() => runs() > firstRuns, { what: 'a plugin run after expiry', context: controllerLog });
    const ranAt = Date.now();
    const after = await eventuallyValue(
      () => {
        const l = lease();
        return l?.holderIdentity === 'exec-replica' && Date.parse(l.renewTime ?? '') > ranAt ? l : undefined;
      },
      { what: 'a renewal after the new run', context: controllerLog },
    );
    expect(after.holderIdentity).toBe('exec-replica');
    expect(controller.child.exitCode).toBeNull();
    expect(controller.output()).not.toMatch(/Unauthorized|401/);
  });
});
