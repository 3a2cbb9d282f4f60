/**
 * How the controller reaches the apiserver: the server URL, the dispatcher (TLS, and an HTTP(S)
 * or SOCKS5 proxy when one applies) and the credentials of each request, from kubeconfig files
 * (merged as kubectl merges them) or from the pod's service account.
 *
 * Note [Own Kubernetes client]
 * The design card names @kubernetes/client-node, and the controller first used it for this
 * (KubeConfig, authentication, Watch). Importing it costs 50 MiB of RSS in the controller (issue
 * 36, median of five runs: `node --input-type=module -e "await import('./controller/main.ts');
 * await import('@kubernetes/client-node')"` 161.5 MiB against 110.9 without the second import;
 * 126 against 41.7 MiB on an empty Node; importing only parts of it does not help, its index
 * pulls in the generated API and openid-client), most of the gap between the measured peak and a
 * small memory limit, and most of the controller image's node_modules. What the controller needs on its hot path
 * is small and lives here: read kubeconfigs (token, token file, client certificate, CA,
 * insecure-skip-tls-verify, tls-server-name, proxy-url) or the in-cluster service account (token
 * re-read as the kubelet rotates it), JSON requests (kube-api.ts) and a watch stream (watch.ts).
 *
 * The package's value is the credentials a laptop's kubeconfig for a managed cluster carries: exec
 * credential plugins (`aws eks get-token`, `gke-gcloud-auth-plugin`, `kubelogin`) and the OIDC
 * auth provider with its refresh-token flow. Only for such a user is it imported, lazily (a dynamic
 * import on the first request), and asked for the credentials; the requests still go through this
 * client. Its cache keeps an exec credential until its `expirationTimestamp` (then runs the plugin
 * again, as client-go does), and a 401 drops the cache so the next request gets fresh credentials
 * (kube-api.ts retries once). The controller image leaves the package out: a pod uses its service
 * account, and the plugins' binaries are not in the image either.
 *
 * Note [Proxies as kubectl]
 * A cluster's `proxy-url` (http, https, socks5) is used for that cluster. Otherwise HTTPS_PROXY
 * (for an https server) or HTTP_PROXY (for http), upper case first then lower case, unless NO_PROXY
 * matches: `*`, an IP, a CIDR, or a domain (`example.com` matches it and its subdomains, `.example.com`
 * only subdomains), each optionally with `:port`; as Go's net/http, `localhost` and loopback
 * addresses are never proxied from the environment. The in-cluster connection honours the same
 * variables (client-go does).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { readFileSync, statSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { BlockList, isIP } from 'node:net';
import path from 'node:path';
import { Agent, ProxyAgent, Socks5ProxyAgent, type Dispatcher } from 'undici';
import { parse } from 'yaml';

/** The credentials and dispatcher of one request. */
export interface RequestAuth {
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher;
}

/** An authenticated way to the apiserver. */
export interface KubeConnection {
  /** Base URL without a trailing slash. */
  readonly server: string;
  /** The namespace of the current context (or of the service account). */
  readonly namespace: string | undefined;
  /** `direct`, or the proxy URL (without its credentials) the requests go through. */
  readonly via: string;
  /** Headers and dispatcher for one request (may run a credential plugin first). */
  auth(): Promise<RequestAuth>;
  /** After a 401: forget cached credentials. True when the next {@link auth} may bring new ones. */
  invalidate(): boolean;
}

/** Environment variables the connection reads (main.ts passes process.env). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Where to look for credentials (main.ts passes the environment). */
export interface KubeConnectionSources {
  /** KUBECONFIG: files separated by the path delimiter, merged as kubectl merges them. */
  readonly kubeconfig?: string;
  /** The home directory, for ~/.kube/config. */
  readonly home?: string;
  /** KUBERNETES_SERVICE_HOST / _PORT: in a pod. */
  readonly serviceHost?: string;
  readonly servicePort?: string;
  /** The service account directory (default /var/run/secrets/kubernetes.io/serviceaccount). */
  readonly serviceAccountDir?: string;
  /** Proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY and their lower-case forms). */
  readonly env?: Env;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The kubelet rotates projected tokens well before they expire; re-reading each minute suffices. */
const TOKEN_REREAD_MS = 60_000;

/** A token read from a file, re-read when older than a minute or after {@link invalidate}. */
function tokenFromFile(file: string): { read(): string; invalidate(): void } {
  let token = '';
  let readAt = 0;
  return {
    read: () => {
      const now = Date.now();
      if (now - readAt > TOKEN_REREAD_MS || token === '') {
        token = readFileSync(file, 'utf8').trim();
        readAt = now;
      }
      return token;
    },
    invalidate: () => {
      readAt = 0;
    },
  };
}

function exists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

type Json = Record<string, unknown>;

function str(o: Json | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** One named entry of a kubeconfig, with the directory of the file that defined it. */
interface Entry {
  readonly value: Json;
  readonly dir: string;
}

/** Several kubeconfig files merged (see {@link mergeKubeconfigs}). */
export interface Kubeconfig {
  readonly currentContext: string | undefined;
  readonly contexts: ReadonlyMap<string, Entry>;
  readonly clusters: ReadonlyMap<string, Entry>;
  readonly users: ReadonlyMap<string, Entry>;
}

/**
 * Merges parsed kubeconfig files as kubectl does: for clusters, users and contexts the first file
 * that names an entry wins; `current-context` comes from the first file that sets it. Relative
 * paths of an entry resolve against the directory of its own file.
 */
export function mergeKubeconfigs(files: readonly { readonly doc: unknown; readonly dir: string }[]): Kubeconfig {
  let currentContext: string | undefined;
  const contexts = new Map<string, Entry>();
  const clusters = new Map<string, Entry>();
  const users = new Map<string, Entry>();
  const add = (into: Map<string, Entry>, list: unknown, key: string, dir: string): void => {
    if (!Array.isArray(list)) return;
    for (const item of list as Json[]) {
      const name = str(item, 'name');
      const value = item?.[key];
      if (name === undefined || into.has(name)) continue;
      into.set(name, { value: typeof value === 'object' && value !== null ? (value as Json) : {}, dir });
    }
  };
  for (const { doc, dir } of files) {
    const cfg = (typeof doc === 'object' && doc !== null ? doc : {}) as Json;
    currentContext ??= str(cfg, 'current-context');
    add(contexts, cfg['contexts'], 'context', dir);
    add(clusters, cfg['clusters'], 'cluster', dir);
    add(users, cfg['users'], 'user', dir);
  }
  return { currentContext, contexts, clusters, users };
}

/** TLS settings of the connection to the apiserver. */
interface Tls {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
  servername?: string;
}

/** The proxy URL kubectl would use for `server` (Note [Proxies as kubectl]), or undefined. */
export function proxyFor(server: string, proxyUrl: string | undefined, env: Env): string | undefined {
  if (proxyUrl !== undefined) return proxyUrl;
  const url = new URL(server);
  const pick = (...names: string[]): string | undefined => names.map((n) => env[n]).find((v) => v !== undefined && v !== '');
  const proxy = url.protocol === 'https:' ? pick('HTTPS_PROXY', 'https_proxy') : pick('HTTP_PROXY', 'http_proxy');
  if (proxy === undefined) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  if (host === 'localhost' || isLoopback(host)) return undefined;
  if (noProxyMatches(pick('NO_PROXY', 'no_proxy') ?? '', host, port)) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

function isLoopback(host: string): boolean {
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/** Go's httpproxy NO_PROXY matching. */
function noProxyMatches(noProxy: string, host: string, port: string): boolean {
  const family = isIP(host);
  for (const raw of noProxy.split(',')) {
    const p = raw.trim().toLowerCase();
    if (p === '') continue;
    if (p === '*') return true;
    const cidr = /^(.+)\/(\d+)$/.exec(p);
    if (cidr !== null) {
      const [, net, bits] = cidr as unknown as [string, string, string];
      const netFamily = isIP(net);
      if (family !== 0 && netFamily === family) {
        const list = new BlockList();
        list.addSubnet(net, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
        if (list.check(host, family === 6 ? 'ipv6' : 'ipv4')) return true;
      }
      continue;
    }
    let h = p;
    let pPort = '';
    const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(p);
    const hostPort = /^([^:]+):(\d+)$/.exec(p);
    if (bracketed !== null) [, h = p, pPort = ''] = bracketed;
    else if (hostPort !== null) [, h = p, pPort = ''] = hostPort;
    if (pPort !== '' && pPort !== port) continue;
    if (isIP(h) !== 0) {
      if (family !== 0 && h === host) return true;
      continue;
    }
    if (h.startsWith('*.')) h = h.slice(1);
    const matchHost = !h.startsWith('.');
    const suffix = matchHost ? `.${h}` : h;
    if (host.endsWith(suffix) || (matchHost && host === h)) return true;
  }
  return false;
}

/** A dispatcher to the apiserver with these TLS settings, through `proxy` when set. */
function makeDispatcher(tls: Tls, proxy: string | undefined): Dispatcher {
  if (proxy === undefined) return new Agent({ connect: tls });
  const scheme = new URL(proxy).protocol;
  if (scheme === 'http:' || scheme === 'https:') return new ProxyAgent({ uri: proxy, requestTls: tls });
  if (scheme === 'socks5:' || scheme === 'socks5h:') {
    const u = new URL(proxy);
    u.protocol = 'socks5:';
    return new Socks5ProxyAgent(u, { requestTls: tls });
  }
  throw new Error(`kubeconfig: proxy ${redact(proxy)}: unsupported scheme ${scheme} (http, https, socks5)`);
}

/** A proxy URL without its credentials. */
function redact(proxy: string): string {
  try {
    const u = new URL(proxy);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/** What the lazily loaded client-node KubeConfig is used for. */
interface CredentialSource {
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/**
 * Credentials of an exec plugin or auth provider, from @kubernetes/client-node (Note [Own
 * Kubernetes client]). Calls are serialized, so an expired credential runs the plugin once.
 */
function pluginCredentials(
  userName: string,
  user: Json,
  server: string,
  dir: string,
): { get(): Promise<{ token?: string; cert?: string; key?: string }>; invalidate(): void } {
  const exec = user['exec'] as Json | undefined;
  const execOptions =
    exec === undefined
      ? undefined
      : {
          ...exec,
          // As kubectl: a command with a path separator is relative to its kubeconfig file.
          command: ((c) => (c !== undefined && c.includes('/') && !path.isAbsolute(c) ? path.join(dir, c) : c))(str(exec, 'command')),
          // kubectl tells the plugin what it expects; client-node does not, some plugins read it.
          env: [
            ...(Array.isArray(exec['env']) ? (exec['env'] as unknown[]) : []),
            {
              name: 'KUBERNETES_EXEC_INFO',
              value: JSON.stringify({ kind: 'ExecCredential', apiVersion: str(exec, 'apiVersion'), spec: { interactive: false } }),
            },
          ],
        };
  let source: Promise<CredentialSource> | undefined;
  const load = async (): Promise<CredentialSource> => {
    // A type-only import above: the package itself loads here, for such a user only.
    let mod: { KubeConfig: typeof KubeConfig };
    try {
      mod = await import('@kubernetes/client-node');
    } catch (e) {
      throw new Error(
        `kubeconfig user ${userName} uses ${exec !== undefined ? 'an exec credential plugin' : 'an auth provider'}, which needs @kubernetes/client-node; it could not be loaded (${(e as Error).message}). In a pod, use the service account.`,
        { cause: e },
      );
    }
    const kc = new mod.KubeConfig();
    kc.loadFromOptions({
      // Only its credentials are used: its agent for this cluster (and so TLS to it) never is.
      clusters: [{ name: 'cluster', server, skipTLSVerify: true }],
      users: [{ name: userName, exec: execOptions, authProvider: user['auth-provider'] }],
      contexts: [{ name: 'context', cluster: 'cluster', user: userName }],
      currentContext: 'context',
    });
    return kc;
  };
  let chain: Promise<unknown> = Promise.resolve();
  const get = async (): Promise<{ token?: string; cert?: string; key?: string }> => {
    const src = (source ??= load());
    src.catch(() => {
      if (source === src) source = undefined;
    });
    const opts: RequestOptions = { headers: {} };
    await (await src).applyToHTTPSOptions(opts);
    const authorization = (opts.headers as Record<string, string | undefined>)['Authorization'];
    return {
      token: authorization?.replace(/^Bearer /, ''),
      cert: opts.cert === undefined ? undefined : String(opts.cert as string | Buffer),
      key: opts.key === undefined ? undefined : String(opts.key as string | Buffer),
    };
  };
  return {
    get: () => {
      const next = chain.then(get, get);
      chain = next.catch(() => undefined);
      return next;
    },
    // A new KubeConfig has empty credential caches: the next request runs the plugin again.
    invalidate: () => {
      source = undefined;
    },
  };
}

/**
 * The connection the current context of merged kubeconfigs describes. `env` holds the proxy
 * variables.
 */
export function connectionFromKubeconfig(cfg: Kubeconfig, env: Env = {}): KubeConnection {
  const contextName = cfg.currentContext;
  const context = contextName === undefined ? undefined : cfg.contexts.get(contextName)?.value;
  if (context === undefined) throw new Error(`kubeconfig: no current context${contextName === undefined ? '' : ` named ${contextName}`}`);
  const clusterName = str(context, 'cluster');
  const clusterEntry = clusterName === undefined ? undefined : cfg.clusters.get(clusterName);
  if (clusterEntry === undefined) throw new Error(`kubeconfig: context ${contextName} names no known cluster`);
  const cluster = clusterEntry.value;
  const userName = str(context, 'user');
  const userEntry = (userName === undefined ? undefined : cfg.users.get(userName)) ?? { value: {}, dir: clusterEntry.dir };
  const user = userEntry.value;
  const serverText = str(cluster, 'server');
  if (serverText === undefined) throw new Error(`kubeconfig: cluster ${clusterName} has no server`);
  const server = serverText.replace(/\/$/, '');
  const pem = (dataKey: string, fileKey: string, entry: Entry): string | undefined => {
    const data = str(entry.value, dataKey);
    if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
    const f = str(entry.value, fileKey);
    return f === undefined ? undefined : readFileSync(path.isAbsolute(f) ? f : path.join(entry.dir, f), 'utf8');
  };
  const tls: Tls = {
    ca: pem('certificate-authority-data', 'certificate-authority', clusterEntry),
    cert: pem('client-certificate-data', 'client-certificate', userEntry),
    key: pem('client-key-data', 'client-key', userEntry),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    servername: str(cluster, 'tls-server-name'),
  };
  const proxy = proxyFor(server, str(cluster, 'proxy-url'), env);
  const via = proxy === undefined ? 'direct' : redact(proxy);
  let dispatcher = makeDispatcher(tls, proxy);

  if (user['exec'] !== undefined || user['auth-provider'] !== undefined) {
    const plugin = pluginCredentials(userName ?? 'user', user, server, userEntry.dir);
    let certKey = `${tls.cert ?? ''}\n${tls.key ?? ''}`;
    return {
      server,
      namespace: str(context, 'namespace'),
      via,
      auth: async () => {
        const c = await plugin.get();
        // A plugin may answer with a client certificate (ExecCredential status.clientCertificateData).
        if (c.cert !== undefined && c.key !== undefined && `${c.cert}\n${c.key}` !== certKey) {
          certKey = `${c.cert}\n${c.key}`;
          const old = dispatcher;
          dispatcher = makeDispatcher({ ...tls, cert: c.cert, key: c.key }, proxy);
          void old.close().catch(() => undefined);
        }
        const headers: Record<string, string> = c.token === undefined ? {} : { authorization: `Bearer ${c.token}` };
        return { headers, dispatcher };
      },
      invalidate: () => {
        plugin.invalidate();
        return true;
      },
    };
  }
  const token = str(user, 'token');
  const tokenFile = str(user, 'tokenFile');
  const fileToken =
    token === undefined && tokenFile !== undefined ? tokenFromFile(path.isAbsolute(tokenFile) ? tokenFile : path.join(userEntry.dir, tokenFile)) : undefined;
  const username = str(user, 'username');
  const password = str(user, 'password');
  const headers = (): Record<string, string> => {
    if (token !== undefined) return { authorization: `Bearer ${token}` };
    if (fileToken !== undefined) return { authorization: `Bearer ${fileToken.read()}` };
    if (username !== undefined) return { authorization: `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}` };
    return {};
  };
  return {
    server,
    namespace: str(context, 'namespace'),
    via,
    auth: () => Promise.resolve({ headers: headers(), dispatcher }),
    invalidate: () => {
      fileToken?.invalidate();
      return fileToken !== undefined;
    },
  };
}

/** The pod's service account connection. */
export function inClusterConnection(host: string, port: string, dir = SA_DIR, env: Env = {}): KubeConnection {
  const h = host.includes(':') ? `[${host}]` : host;
  const server = `https://${h}:${port}`;
  const token = tokenFromFile(path.join(dir, 'token'));
  const nsFile = path.join(dir, 'namespace');
  const proxy = proxyFor(server, undefined, env);
  const dispatcher = makeDispatcher({ ca: readFileSync(path.join(dir, 'ca.crt'), 'utf8'), rejectUnauthorized: true }, proxy);
  return {
    server,
    namespace: exists(nsFile) ? readFileSync(nsFile, 'utf8').trim() : undefined,
    via: proxy === undefined ? 'direct' : redact(proxy),
    auth: () => Promise.resolve({ headers: { authorization: `Bearer ${token.read()}` }, dispatcher }),
    invalidate: () => {
      token.invalidate();
      return true;
    },
  };
}

/** Reads and merges kubeconfig files (missing files are skipped, as kubectl skips them). */
export function readKubeconfigs(files: readonly string[]): Kubeconfig {
  return mergeKubeconfigs(files.filter(exists).map((f) => ({ doc: parse(readFileSync(f, 'utf8')) as unknown, dir: path.dirname(path.resolve(f)) })));
}

/** KUBECONFIG (merged), else ~/.kube/config, else the in-cluster service account (client-go's order). */
export function loadKubeConnection(src: KubeConnectionSources): KubeConnection {
  const env = src.env ?? {};
  const listed = (src.kubeconfig ?? '').split(path.delimiter).filter((f) => f !== '');
  const dir = src.serviceAccountDir ?? SA_DIR;
  const inCluster = src.serviceHost !== undefined && src.servicePort !== undefined && exists(path.join(dir, 'token'));
  if (listed.length > 0) {
    if (listed.some(exists) || !inCluster) {
      if (!listed.some(exists)) throw new Error(`KUBECONFIG names no existing file: ${listed.join(path.delimiter)}`);
      return connectionFromKubeconfig(readKubeconfigs(listed), env);
    }
  } else {
    const home = src.home === undefined ? undefined : path.join(src.home, '.kube', 'config');
    if (home !== undefined && exists(home)) return connectionFromKubeconfig(readKubeconfigs([home]), env);
  }
  if (inCluster) return inClusterConnection(src.serviceHost as string, src.servicePort as string, dir, env);
  throw new Error('no Kubernetes credentials: set KUBECONFIG, provide ~/.kube/config, or run in a pod with a service account');
}
