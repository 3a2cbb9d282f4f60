/**
 * How the controller reaches the apiserver: the server URL, TLS (an undici dispatcher) and the
 * bearer token of each request, from a kubeconfig file or from the pod's service account.
 *
 * Note [Own Kubernetes client]
 * The controller used @kubernetes/client-node for exactly this (KubeConfig, authentication, and
 * Watch). Importing it costs 85 MiB of RSS and 36 MiB of heap before any work (node -e import:
 * 41.6 -> 126.8 MiB RSS; the rest of the controller's imports, undici and ajv, reach 71.7), which
 * was most of the gap between the measured peak and a small limit, and most of the controller
 * image's node_modules. What the controller needs of it is small: read a kubeconfig (token, token
 * file, client certificate, CA, insecure-skip-tls-verify) or the in-cluster service account
 * (token re-read as the kubelet rotates it), and stream a watch (watch.ts). Exec credential
 * plugins and auth providers are not supported; the error says so.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Agent } from 'undici';
import { parse } from 'yaml';

/** An authenticated way to the apiserver. */
export interface KubeConnection {
  /** Base URL without a trailing slash. */
  readonly server: string;
  readonly dispatcher: Agent;
  /** Headers that authenticate one request (the token may be re-read from its file). */
  authHeaders(): Record<string, string>;
  /** The namespace of the current context (or of the service account). */
  readonly namespace: string | undefined;
}

/** Where to look for credentials (main.ts passes the environment). */
export interface KubeConnectionSources {
  /** KUBECONFIG (the first file of a list is used). */
  readonly kubeconfig?: string;
  /** The home directory, for ~/.kube/config. */
  readonly home?: string;
  /** KUBERNETES_SERVICE_HOST / _PORT: in a pod. */
  readonly serviceHost?: string;
  readonly servicePort?: string;
  /** The service account directory (default /var/run/secrets/kubernetes.io/serviceaccount). */
  readonly serviceAccountDir?: string;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The kubelet rotates projected tokens well before they expire; re-reading each minute suffices. */
const TOKEN_REREAD_MS = 60_000;

/** A token read from a file and re-read when older than a minute. */
function tokenFromFile(file: string): () => string {
  let token = '';
  let readAt = 0;
  return () => {
    const now = Date.now();
    if (now - readAt > TOKEN_REREAD_MS || token === '') {
      token = readFileSync(file, 'utf8').trim();
      readAt = now;
    }
    return token;
  };
}

function exists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

interface Named<T> {
  name: string;
  cluster?: T;
  user?: T;
  context?: T;
}

type Json = Record<string, unknown>;

function str(o: Json | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The connection a kubeconfig document describes (current context). `dir` resolves relative paths. */
export function connectionFromKubeconfig(doc: unknown, dir: string): KubeConnection {
  const cfg = (doc ?? {}) as { 'current-context'?: string; contexts?: Named<Json>[]; clusters?: Named<Json>[]; users?: Named<Json>[] };
  const contextName = cfg['current-context'];
  const context = cfg.contexts?.find((c) => c.name === contextName)?.context;
  if (context === undefined) throw new Error(`kubeconfig: no current context${contextName === undefined ? '' : ` named ${contextName}`}`);
  const cluster = cfg.clusters?.find((c) => c.name === str(context, 'cluster'))?.cluster;
  if (cluster === undefined) throw new Error(`kubeconfig: context ${String(contextName)} names no known cluster`);
  const user = cfg.users?.find((u) => u.name === str(context, 'user'))?.user ?? {};
  const server = str(cluster, 'server');
  if (server === undefined) throw new Error(`kubeconfig: cluster ${String(str(context, 'cluster'))} has no server`);
  const file = (p: string): string => (path.isAbsolute(p) ? p : path.join(dir, p));
  const pem = (dataKey: string, fileKey: string, o: Json): string | undefined => {
    const data = str(o, dataKey);
    if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
    const f = str(o, fileKey);
    return f === undefined ? undefined : readFileSync(file(f), 'utf8');
  };
  if (user['exec'] !== undefined || user['auth-provider'] !== undefined) {
    throw new Error(
      'kubeconfig: exec credential plugins and auth providers are not supported; use a token, a token file or a client certificate (in a pod the service account is used)',
    );
  }
  const token = str(user, 'token');
  const tokenFile = str(user, 'tokenFile');
  const readToken = token !== undefined ? (): string => token : tokenFile !== undefined ? tokenFromFile(file(tokenFile)) : undefined;
  const dispatcher = new Agent({
    connect: {
      ca: pem('certificate-authority-data', 'certificate-authority', cluster),
      cert: pem('client-certificate-data', 'client-certificate', user),
      key: pem('client-key-data', 'client-key', user),
      rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    },
  });
  return {
    server: server.replace(/\/$/, ''),
    dispatcher,
    authHeaders: (): Record<string, string> => (readToken === undefined ? {} : { authorization: `Bearer ${readToken()}` }),
    namespace: str(context, 'namespace'),
  };
}

/** The pod's service account connection. */
export function inClusterConnection(host: string, port: string, dir = SA_DIR): KubeConnection {
  const h = host.includes(':') ? `[${host}]` : host;
  const readToken = tokenFromFile(path.join(dir, 'token'));
  const nsFile = path.join(dir, 'namespace');
  return {
    server: `https://${h}:${port}`,
    dispatcher: new Agent({ connect: { ca: readFileSync(path.join(dir, 'ca.crt'), 'utf8') } }),
    authHeaders: () => ({ authorization: `Bearer ${readToken()}` }),
    namespace: exists(nsFile) ? readFileSync(nsFile, 'utf8').trim() : undefined,
  };
}

/** KUBECONFIG, else ~/.kube/config, else the in-cluster service account (client-go's order). */
export function loadKubeConnection(src: KubeConnectionSources): KubeConnection {
  const fromFile = (f: string): KubeConnection => connectionFromKubeconfig(parse(readFileSync(f, 'utf8')), path.dirname(f));
  const listed = src.kubeconfig?.split(path.delimiter).find((f) => f !== '');
  if (listed !== undefined) return fromFile(listed);
  const home = src.home === undefined ? undefined : path.join(src.home, '.kube', 'config');
  if (home !== undefined && exists(home)) return fromFile(home);
  const dir = src.serviceAccountDir ?? SA_DIR;
  if (src.serviceHost !== undefined && src.servicePort !== undefined && exists(path.join(dir, 'token'))) {
    return inClusterConnection(src.serviceHost, src.servicePort, dir);
  }
  throw new Error('no Kubernetes credentials: set KUBECONFIG, provide ~/.kube/config, or run in a pod with a service account');
}
