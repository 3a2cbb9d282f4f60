/**
 * v2's insecure TLS allow-list (`network.tls_allowlist`, `add_host_to_tls_allowlist`):
 * the hosts whose certificates the engine accepts without verifying them.
 *
 * Note [TLS allow-list]
 * v2 keeps one HTTP manager per process whose TLS check reads the schema
 * cache's allow-list at every new connection; the list covers every outgoing
 * HTTPS call made with it (remote schemas, action handlers, event and
 * scheduled-event webhooks, the auth webhook, the JWT key set). Here too:
 * every one of those clients' undici Agents connects
 * through {@link allowlistConnector}, which reads the allow-lists the engines
 * of this process installed ({@link installTlsAllowlist}, on every catalog
 * change) when a connection opens. An entry names a host (compared with the
 * URL's host name, without case) and, when it has a `suffix`, the port (the
 * URL's, or 443); `permissions` can only be `["self-signed"]` (v2's one
 * permission: self-signed, name mismatch, non-X509v3), and an entry without it
 * allows the same. One process serves one engine; when a test runs several,
 * a host any of them allows is allowed for all. A connection opened while a
 * host was allowed would outlive its removal in the agents' keep-alive pools,
 * so every change of a list starts a new generation: {@link allowlistAgent}
 * makes a new Agent for it and closes the old one once its requests are done.
 */
import type { Agent, buildConnector as BuildConnector } from 'undici';
import type { TlsAllowEntry } from './model/document.ts';
import { undici } from './undici.ts';

const installed = new Map<object, readonly TlsAllowEntry[]>();
let generation = 0;

/** Sets the allow-list of one engine (`owner`); an empty list removes it. */
export function installTlsAllowlist(owner: object, list: readonly TlsAllowEntry[]): void {
  const before = installed.get(owner) ?? [];
  if (sameList(before, list)) return;
  if (list.length === 0) installed.delete(owner);
  else installed.set(owner, list);
  generation += 1;
}

function sameList(a: readonly TlsAllowEntry[], b: readonly TlsAllowEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.host === b[i]?.host && e.suffix === b[i]?.suffix);
}

function listAllows(list: readonly TlsAllowEntry[], host: string, port: string): boolean {
  return list.some((e) => e.host.toLowerCase() === host && (e.suffix === undefined || e.suffix === port));
}

/** `hostname` and `port` as a URL or undici gives them ('' for the default port) → what entries are compared with. */
function hostAndPort(hostname: string, port: string): [string, string] {
  return [hostname.replace(/^\[|\]$/g, '').toLowerCase(), port === '' ? '443' : port];
}

/** Whether an installed allow-list lets an HTTPS connection to `hostname:port` skip certificate checks. */
export function tlsAllowed(hostname: string, port: string): boolean {
  if (installed.size === 0) return false;
  const [host, p] = hostAndPort(hostname, port);
  for (const list of installed.values()) if (listAllows(list, host, p)) return true;
  return false;
}

/** Whether `list` lets an HTTPS call to `url` skip certificate checks (metadata calls check a pending document's list so). */
export function urlAllowedBy(list: readonly TlsAllowEntry[], url: string): boolean {
  if (list.length === 0) return false;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:') return false;
  const [host, p] = hostAndPort(u.hostname, u.port);
  return listAllows(list, host, p);
}

/**
 * A connector for an Agent: an HTTPS connection to an allowed host is opened
 * without verifying the certificate, any other exactly as undici's default
 * connector opens it.
 */
function allowlistConnector(): BuildConnector.connector {
  const { buildConnector } = undici();
  const verified = buildConnector({});
  let unverified: BuildConnector.connector | undefined;
  return (opts, callback) => {
    if (opts.protocol === 'https:' && tlsAllowed(opts.hostname, opts.port)) {
      unverified ??= buildConnector({ rejectUnauthorized: false });
      unverified(opts, callback);
    } else verified(opts, callback);
  };
}

/**
 * An undici Agent with `options` that connects through {@link allowlistConnector}: the
 * returned getter makes it on first use (Note [HTTP client on first use] in undici.ts) and
 * again once the allow-list changed (the old one is closed when its requests are done).
 */
export function allowlistAgent(options: Omit<Agent.Options, 'connect'>): () => Agent {
  let agent: Agent | undefined;
  let madeAt = -1;
  return () => {
    if (agent !== undefined && madeAt === generation) return agent;
    const old = agent;
    agent = new (undici().Agent)({ ...options, connect: allowlistConnector() });
    madeAt = generation;
    if (old !== undefined) void old.close().catch(() => {});
    return agent;
  };
}

const fetchAgent = allowlistAgent({ keepAliveTimeout: 30_000 });

/**
 * `fetch` through an Agent that follows the allow-list: the auth webhook and the JWT key set,
 * which v2's one HTTP manager also serves (Note [TLS allow-list]).
 */
export async function allowlistFetch(url: string, init: Parameters<typeof fetch>[1] = {}): Promise<Response> {
  const { fetch: undiciFetch } = undici();
  return (await undiciFetch(url, { ...(init as object), dispatcher: fetchAgent() })) as unknown as Response;
}
