/**
 * The controller's own Kubernetes client (Note [Own Kubernetes client], Note [Proxies as kubectl],
 * Note [Retry-After]): kubeconfigs merged as kubectl merges them, the service account, proxies
 * (a real CONNECT proxy in front of a real HTTPS server), 429/503 Retry-After against a real HTTP
 * server, and an exec credential plugin that is a real script, run through @kubernetes/client-node.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer } from '../../../controller/runtime/informer.ts';
import { KubeApi, KubeApiError, retryAfterMs } from '../../../controller/runtime/kube-api.ts';
import { connectionFromKubeconfig, loadKubeConnection, mergeKubeconfigs, proxyFor, readKubeconfigs } from '../../../controller/runtime/kube-connection.ts';
import { watch, type WatchEnd } from '../../../controller/runtime/watch.ts';
import { startConnectProxy, startSocks5Proxy, type ConnectProxy } from '../../support/connect-proxy.ts';
import { eventuallyValue } from '../../support/eventually.ts';

const config = (user: Record<string, unknown>, cluster: Record<string, unknown> = { server: 'https://k8s.example:6443/' }): Record<string, unknown> => ({
  'current-context': 'c',
  contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace: 'team-a' } }],
  clusters: [{ name: 'k', cluster }],
  users: [{ name: 'u', user }],
});
const one = (doc: unknown, dir = '/'): ReturnType<typeof mergeKubeconfigs> => mergeKubeconfigs([{ doc, dir }]);
const tmp = (prefix: string): string => mkdtempSync(path.join(tmpdir(), prefix));

interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
}

/** A loopback server standing in for the apiserver; `answer` decides each response. */
async function startApiserver(
  answer: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void,
  tls?: { key: string; cert: string },
): Promise<{ port: number; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    req.resume();
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization });
      answer(req, res, requests.length);
    });
  };
  const server = tls === undefined ? http.createServer(handler) : https.createServer(tls, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A self-signed certificate for `name` (openssl). */
function selfSigned(dir: string, name: string): { key: string; cert: string } {
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=DNS:${name}`,
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
}

const okList = (res: http.ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'NamespaceList', items: [], metadata: { resourceVersion: '7' } }));
};

describe('kubeconfig and service account', () => {
  it('reads the current context: server, namespace and a bearer token', async () => {
    const c = connectionFromKubeconfig(one(config({ token: 'abc' }, { server: 'https://k8s.example:6443/', 'insecure-skip-tls-verify': true })));
    expect(c.server).toBe('https://k8s.example:6443');
    expect(c.namespace).toBe('team-a');
    expect(c.via).toBe('direct');
    expect((await c.auth()).headers).toEqual({ authorization: 'Bearer abc' });
  });

  it('reads a token file relative to the kubeconfig, and no header without a token (client certificates)', async () => {
    const dir = tmp('kc-');
    writeFileSync(path.join(dir, 'tok'), 'from-file\n');
    const c = connectionFromKubeconfig(one(config({ tokenFile: 'tok' }), dir));
    expect((await c.auth()).headers).toEqual({ authorization: 'Bearer from-file' });
    // After a 401 the file is read again (a rotated token), without waiting for the minute.
    writeFileSync(path.join(dir, 'tok'), 'rotated\n');
    expect(c.invalidate()).toBe(true);
    expect((await c.auth()).headers).toEqual({ authorization: 'Bearer rotated' });
    expect((await connectionFromKubeconfig(one(config({}), dir)).auth()).headers).toEqual({});
  });

  it('names what is missing', () => {
    expect(() => connectionFromKubeconfig(one({ 'current-context': 'x' }))).toThrow(/no current context named x/);
    expect(() => connectionFromKubeconfig(one(config({}, { 'proxy-url': 'ftp://p:21', server: 'https://k:1' })))).toThrow(/unsupported scheme ftp:/);
  });

  it('merges KUBECONFIG files as kubectl: first file wins per name, current-context from the first that sets it', async () => {
    const a = tmp('kc-a-');
    const b = tmp('kc-b-');
    writeFileSync(path.join(b, 'tok'), 'token-of-b');
    writeFileSync(
      path.join(a, 'config'),
      JSON.stringify({ users: [{ name: 'u', user: { token: 'token-of-a' } }], contexts: [{ name: 'only-a', context: { cluster: 'k', user: 'u' } }] }),
    );
    writeFileSync(
      path.join(b, 'config'),
      JSON.stringify({
        'current-context': 'ctx',
        clusters: [{ name: 'k', cluster: { server: 'https://from-b:6443' } }],
        users: [
          { name: 'u', user: { token: 'ignored: a names u first' } },
          { name: 'file-user', user: { tokenFile: 'tok' } },
        ],
        contexts: [{ name: 'ctx', context: { cluster: 'k', user: 'u', namespace: 'b-ns' } }],
      }),
    );
    const missing = path.join(a, 'does-not-exist');
    const c = loadKubeConnection({ kubeconfig: [missing, path.join(a, 'config'), path.join(b, 'config')].join(path.delimiter) });
    expect(c.server).toBe('https://from-b:6443');
    expect(c.namespace).toBe('b-ns');
    expect((await c.auth()).headers).toEqual({ authorization: 'Bearer token-of-a' });
    // A relative path of an entry resolves against its own file's directory.
    const merged = readKubeconfigs([path.join(a, 'config'), path.join(b, 'config')]);
    const fileUser = connectionFromKubeconfig({
      ...merged,
      currentContext: 'ctx',
      contexts: new Map([['ctx', { value: { cluster: 'k', user: 'file-user' }, dir: a }]]),
    });
    expect((await fileUser.auth()).headers).toEqual({ authorization: 'Bearer token-of-b' });
    expect(() => loadKubeConnection({ kubeconfig: missing })).toThrow(/KUBECONFIG names no existing file/);
  });

  it('uses the pod service account when there is no kubeconfig', async () => {
    const dir = tmp('sa-');
    writeFileSync(path.join(dir, 'token'), 'sa-token');
    writeFileSync(path.join(dir, 'namespace'), 'graphql-engine-system');
    // A throwaway self-signed CA is not needed to build the dispatcher: any PEM text is accepted lazily.
    writeFileSync(path.join(dir, 'ca.crt'), '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
    const c = loadKubeConnection({ home: dir, serviceHost: 'fd00::1', servicePort: '443', serviceAccountDir: dir, env: { HTTPS_PROXY: 'proxy.corp:3128' } });
    expect(c.server).toBe('https://[fd00::1]:443');
    expect(c.namespace).toBe('graphql-engine-system');
    expect(c.via).toBe('http://proxy.corp:3128');
    expect((await c.auth()).headers).toEqual({ authorization: 'Bearer sa-token' });
    expect(() => loadKubeConnection({ home: dir })).toThrow(/no Kubernetes credentials/);
    // As client-go: a KUBECONFIG naming only missing files falls back to the service account.
    expect(loadKubeConnection({ kubeconfig: path.join(dir, 'missing'), serviceHost: '10.0.0.1', servicePort: '443', serviceAccountDir: dir }).server).toBe(
      'https://10.0.0.1:443',
    );
  });
});

describe('proxies as kubectl', () => {
  it('picks HTTPS_PROXY or HTTP_PROXY by scheme, honours NO_PROXY, never proxies loopback, and proxy-url wins', () => {
    const env = { HTTPS_PROXY: 'https-proxy:3128', http_proxy: 'http://http-proxy:8080' };
    expect(proxyFor('https://k8s.example:6443', undefined, env)).toBe('http://https-proxy:3128');
    expect(proxyFor('http://k8s.example', undefined, env)).toBe('http://http-proxy:8080');
    expect(proxyFor('https://k8s.example', undefined, { HTTP_PROXY: 'x:1' })).toBeUndefined();
    expect(proxyFor('https://127.0.0.1:6443', undefined, env)).toBeUndefined();
    expect(proxyFor('https://[::1]:6443', undefined, env)).toBeUndefined();
    expect(proxyFor('https://localhost:6443', undefined, env)).toBeUndefined();
    const no = (noProxy: string, server: string): boolean => proxyFor(server, undefined, { ...env, NO_PROXY: noProxy }) === undefined;
    expect(no('example', 'https://k8s.example')).toBe(true);
    expect(no('k8s.example', 'https://k8s.example')).toBe(true);
    expect(no('.example', 'https://example')).toBe(false);
    expect(no('*.example', 'https://a.example')).toBe(true);
    expect(no('other.org, 10.0.0.0/8', 'https://10.1.2.3:443')).toBe(true);
    expect(no('10.0.0.0/8', 'https://11.1.2.3:443')).toBe(false);
    expect(no('k8s.example:6443', 'https://k8s.example:6443')).toBe(true);
    expect(no('k8s.example:6443', 'https://k8s.example')).toBe(false);
    expect(no('*', 'https://anything')).toBe(true);
    expect(no('fd00::1', 'https://[fd00::1]:443')).toBe(true);
    expect(proxyFor('https://127.0.0.1:6443', 'socks5://p:1080', env)).toBe('socks5://p:1080');
  });

  describe('through a real CONNECT proxy', () => {
    let dir: string;
    let tls: { key: string; cert: string };
    let apiserver: Awaited<ReturnType<typeof startApiserver>>;
    let proxy: ConnectProxy;
    // Only the proxy can resolve this name: a request that bypasses it fails.
    const NAME = 'apiserver.proxied.test';

    beforeAll(async () => {
      dir = tmp('proxy-');
      tls = selfSigned(dir, NAME);
      apiserver = await startApiserver((req, res) => {
        if (req.url?.includes('watch=true')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '8' } } })}\n`);
        } else okList(res);
      }, tls);
      proxy = await startConnectProxy({ [NAME]: '127.0.0.1' });
    });
    afterAll(async () => {
      await apiserver?.close();
      await proxy?.close();
    });

    const kubeconfig = (cluster: Record<string, unknown> = {}): ReturnType<typeof mergeKubeconfigs> =>
      one(
        config(
          { token: 'through-proxy' },
          { server: `https://${NAME}:${apiserver.port}`, 'certificate-authority-data': Buffer.from(tls.cert).toString('base64'), ...cluster },
        ),
      );

    it('sends requests and watches through HTTPS_PROXY, verifying the apiserver certificate through the tunnel', async () => {
      const proxyUrl = new URL(proxy.url);
      proxyUrl.username = 'me';
      proxyUrl.password = 'secret';
      const conn = connectionFromKubeconfig(kubeconfig(), { HTTPS_PROXY: proxyUrl.toString(), NO_PROXY: 'other.test,10.0.0.0/8' });
      expect(conn.via).toBe(proxy.url);
      const before = apiserver.requests.length;
      const list = await new KubeApi(conn).request<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces');
      expect(list.metadata.resourceVersion).toBe('7');
      expect(apiserver.requests.slice(before)).toEqual([{ method: 'GET', path: '/api/v1/namespaces', authorization: 'Bearer through-proxy' }]);
      expect(proxy.connects).toContain(`${NAME}:${apiserver.port} Basic ${Buffer.from('me:secret').toString('base64')}`);

      const events: string[] = [];
      const end = await new Promise<WatchEnd>((resolve) => {
        watch(conn, '/api/v1/namespaces', {}, (type, o) => events.push(`${type} ${(o as { metadata: { name: string } }).metadata.name}`), resolve);
      });
      expect(end).toBeNull();
      expect(events).toEqual(['ADDED a']);
    });

    it("uses the cluster's proxy-url without any environment", async () => {
      const connects = proxy.connects.length;
      const conn = connectionFromKubeconfig(kubeconfig({ 'proxy-url': proxy.url }), {});
      await new KubeApi(conn).request('GET', '/api/v1/namespaces');
      expect(proxy.connects.slice(connects)).toEqual([`${NAME}:${apiserver.port}`]);
    });

    it('uses a socks5 proxy-url (the name resolved by the proxy)', async () => {
      const socks = await startSocks5Proxy({ [NAME]: '127.0.0.1' });
      try {
        const conn = connectionFromKubeconfig(kubeconfig({ 'proxy-url': socks.url }), {});
        expect(conn.via).toBe(socks.url);
        const list = await new KubeApi(conn).request<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces');
        expect(list.metadata.resourceVersion).toBe('7');
        expect(socks.connects).toEqual([`${NAME}:${apiserver.port}`]);
      } finally {
        await socks.close();
      }
    });

    it('goes direct when NO_PROXY names the server (and then cannot resolve the name: the proxy was needed)', async () => {
      const conn = connectionFromKubeconfig(kubeconfig(), { HTTPS_PROXY: proxy.url, NO_PROXY: `.test` });
      expect(conn.via).toBe('direct');
      const err = await new KubeApi(conn).request('GET', '/api/v1/namespaces').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as KubeApiError).status).toBe(0);
    });
  });
});

describe('Retry-After', () => {
  it('parses seconds and HTTP dates for 429 and 5xx only, capped at 30 s', () => {
    expect(retryAfterMs(429, '2')).toBe(2000);
    expect(retryAfterMs(503, '0')).toBe(0);
    expect(retryAfterMs(503, '600')).toBe(30_000);
    expect(retryAfterMs(429, new Date(10_000).toUTCString(), 7_000)).toBe(3000);
    expect(retryAfterMs(429, null)).toBeUndefined();
    expect(retryAfterMs(409, '1')).toBeUndefined();
    expect(retryAfterMs(429, 'soon')).toBeUndefined();
  });

  it('waits as told on 429 and 503 and then retries, for reads and writes; without Retry-After it fails at once', async () => {
    const server = await startApiserver((req, res, n) => {
      if (req.url === '/no-retry-after') {
        res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', reason: 'TooManyRequests', message: 'slow down' }));
      } else if (n === 1) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', reason: 'TooManyRequests' }));
      } else if (n === 3) res.writeHead(503, { 'retry-after': '1' }).end('shutting down');
      else okList(res);
    });
    try {
      const api = new KubeApi(connectionFromKubeconfig(one(config({ token: 't' }, { server: `http://127.0.0.1:${server.port}` }))));
      let t0 = Date.now();
      await api.request('GET', '/api/v1/namespaces');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
      t0 = Date.now();
      await api.request('POST', '/api/v1/namespaces', { metadata: { name: 'x' } });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
      expect(server.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'POST', 'POST']);
      expect(api.retries).toBe(2);
      const err = await api.request('GET', '/no-retry-after').catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429, reason: 'TooManyRequests' });
      expect(server.requests).toHaveLength(5);
    } finally {
      await server.close();
    }
  });
});

describe('Retry-After on a watch', () => {
  it('makes the informer stay away as long as told (longer than its 1 s backoff)', async () => {
    const seen: { watch: boolean; at: number }[] = [];
    const server = await startApiserver((req, res) => {
      const isWatch = req.url?.includes('watch=true') === true;
      seen.push({ watch: isWatch, at: Date.now() });
      if (isWatch) res.writeHead(429, { 'retry-after': '3' }).end('{}');
      else okList(res);
    });
    const api = new KubeApi(connectionFromKubeconfig(one(config({}, { server: `http://127.0.0.1:${server.port}` }))));
    const informer = new Informer(api, { apiVersion: 'v1', plural: 'namespaces' }, { onUpsert: () => undefined, onDelete: () => undefined });
    try {
      informer.start();
      const relist = await eventuallyValue(
        () => {
          const w = seen.findIndex((r) => r.watch);
          const next = w < 0 ? undefined : seen.slice(w + 1).find((r) => !r.watch);
          return next === undefined ? undefined : next.at - (seen[w]?.at ?? 0);
        },
        { what: 'a list after the refused watch', timeoutMs: 15_000, intervalMs: 100 },
      );
      expect(relist).toBeGreaterThanOrEqual(2900);
    } finally {
      informer.stop();
      await server.close();
    }
  });
});

describe('exec credential plugin (through @kubernetes/client-node, loaded lazily)', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startApiserver>>;
  /** Tokens the server accepts; the test revokes them. */
  const revoked = new Set<string>();

  beforeAll(async () => {
    dir = tmp('exec-');
    // The plugin: counts its runs, records KUBERNETES_EXEC_INFO, prints an ExecCredential whose
    // token names the run and which expires after EXPIRES_MS.
    writeFileSync(
      path.join(dir, 'plugin.mjs'),
      `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const dir = ${JSON.stringify(dir)};
let n = 0;
try { n = Number(readFileSync(dir + '/runs', 'utf8')); } catch {}
n++;
writeFileSync(dir + '/runs', String(n));
appendFileSync(dir + '/exec-info', (process.env.KUBERNETES_EXEC_INFO ?? '') + '\\n');
const expires = new Date(Date.now() + Number(process.env.EXPIRES_MS)).toISOString();
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'exec-' + n, expirationTimestamp: expires } }));
`,
    );
    // A command with a path separator is relative to the kubeconfig (as kubectl resolves it).
    writeFileSync(path.join(dir, 'plugin.sh'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(dir, 'plugin.mjs'))}\n`);
    chmodSync(path.join(dir, 'plugin.sh'), 0o755);
    server = await startApiserver((req, res) => {
      const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      if (!token.startsWith('exec-') || revoked.has(token)) res.writeHead(401).end(JSON.stringify({ kind: 'Status', reason: 'Unauthorized' }));
      else okList(res);
    });
    writeFileSync(
      path.join(dir, 'kubeconfig'),
      JSON.stringify(
        config(
          {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: './plugin.sh',
              env: [{ name: 'EXPIRES_MS', value: '2500' }],
              interactiveMode: 'Never',
            },
          },
          { server: `http://127.0.0.1:${server.port}` },
        ),
      ),
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  const runs = (): number => {
    try {
      return Number(readFileSync(path.join(dir, 'runs'), 'utf8'));
    } catch {
      return 0;
    }
  };

  it('runs the plugin once, sends its token, runs it again after expiry and after a 401', async () => {
    const api = new KubeApi(loadKubeConnection({ kubeconfig: path.join(dir, 'kubeconfig') }));
    expect(runs()).toBe(0);
    const t0 = Date.now();
    await Promise.all([api.request('GET', '/api/v1/namespaces'), api.request('GET', '/api/v1/namespaces')]);
    expect(runs()).toBe(1);
    expect(server.requests.map((r) => r.authorization)).toEqual(['Bearer exec-1', 'Bearer exec-1']);
    expect(JSON.parse(readFileSync(path.join(dir, 'exec-info'), 'utf8').split('\n')[0] ?? '')).toEqual({
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1',
      spec: { interactive: false },
    });

    // The cached credential serves until it expires, then the plugin runs again.
    const second = await eventuallyValue(
      async () => {
        await api.request('GET', '/api/v1/namespaces');
        return runs() >= 2 ? Date.now() : undefined;
      },
      { what: 'a second plugin run', timeoutMs: 15_000, intervalMs: 100 },
    );
    expect(second - t0).toBeGreaterThanOrEqual(2400);
    expect(runs()).toBe(2);
    expect(server.requests.at(-1)?.authorization).toBe('Bearer exec-2');

    // Revoked before it expires: the 401 drops the cache, the plugin runs, the request succeeds.
    revoked.add('exec-2');
    await api.request('GET', '/api/v1/namespaces');
    expect(runs()).toBe(3);
    expect(server.requests.slice(-2).map((r) => r.authorization)).toEqual(['Bearer exec-2', 'Bearer exec-3']);
  });

  it('sends the id-token of an OIDC auth provider (client-node reads it; no refresh while it is valid)', async () => {
    const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${b64({ alg: 'RS256' })}.${b64({ iss: 'https://idp.test', exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
    const conn = connectionFromKubeconfig(
      one(
        config({
          'auth-provider': { name: 'oidc', config: { 'client-id': 'k', 'id-token': idToken, 'refresh-token': 'r', 'idp-issuer-url': 'https://idp.test' } },
        }),
      ),
    );
    expect((await conn.auth()).headers).toEqual({ authorization: `Bearer ${idToken}` });
  });

  it('reports a plugin that cannot run as an error of the request', async () => {
    const bad = path.join(dir, 'bad-kubeconfig');
    writeFileSync(
      bad,
      JSON.stringify(
        config({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './missing-plugin' } }, { server: `http://127.0.0.1:${server.port}` }),
      ),
    );
    const err = await new KubeApi(loadKubeConnection({ kubeconfig: bad })).request('GET', '/api/v1/namespaces').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).message).toMatch(/missing-plugin|ENOENT/);
  });
});
