/**
 * The controller's own kubeconfig / service-account reading (Note [Own Kubernetes client]).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionFromKubeconfig, loadKubeConnection } from '../../../controller/runtime/kube-connection.ts';

const config = (user: Record<string, unknown>, cluster: Record<string, unknown> = { server: 'https://k8s.example:6443/' }): unknown => ({
  'current-context': 'c',
  contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace: 'team-a' } }],
  clusters: [{ name: 'k', cluster }],
  users: [{ name: 'u', user }],
});

describe('kube connection', () => {
  it('reads the current context: server, namespace and a bearer token', () => {
    const c = connectionFromKubeconfig(config({ token: 'abc' }, { server: 'https://k8s.example:6443/', 'insecure-skip-tls-verify': true }), '/');
    expect(c.server).toBe('https://k8s.example:6443');
    expect(c.namespace).toBe('team-a');
    expect(c.authHeaders()).toEqual({ authorization: 'Bearer abc' });
  });

  it('reads a token file relative to the kubeconfig, and no header without a token (client certificates)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kc-'));
    writeFileSync(path.join(dir, 'tok'), 'from-file\n');
    expect(connectionFromKubeconfig(config({ tokenFile: 'tok' }), dir).authHeaders()).toEqual({ authorization: 'Bearer from-file' });
    expect(connectionFromKubeconfig(config({}), dir).authHeaders()).toEqual({});
  });

  it('says plainly that exec plugins are not supported, and what is missing', () => {
    expect(() => connectionFromKubeconfig(config({ exec: { command: 'aws' } }), '/')).toThrow(/exec credential plugins and auth providers are not supported/);
    expect(() => connectionFromKubeconfig({ 'current-context': 'x' }, '/')).toThrow(/no current context named x/);
  });

  it('uses the pod service account when there is no kubeconfig', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sa-'));
    writeFileSync(path.join(dir, 'token'), 'sa-token');
    writeFileSync(path.join(dir, 'namespace'), 'graphql-engine-system');
    // A throwaway self-signed CA is not needed to build the dispatcher: any PEM text is accepted lazily.
    writeFileSync(path.join(dir, 'ca.crt'), '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
    const c = loadKubeConnection({ home: dir, serviceHost: 'fd00::1', servicePort: '443', serviceAccountDir: dir });
    expect(c.server).toBe('https://[fd00::1]:443');
    expect(c.namespace).toBe('graphql-engine-system');
    expect(c.authHeaders()).toEqual({ authorization: 'Bearer sa-token' });
    expect(() => loadKubeConnection({ home: dir })).toThrow(/no Kubernetes credentials/);
  });
});
