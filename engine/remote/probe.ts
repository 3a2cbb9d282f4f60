/**
 * Reachability of the remote schemas, for `/readyz?remotes=true` (Note [Probing a remote schema]).
 *
 * Note [Probing a remote schema]
 * The engine introspects a remote when metadata is built and keeps that schema, so a remote that
 * dies afterwards stays consistent (as in v2) and only a request through it fails. Asking for a
 * reload to find out would rebuild the catalog, invalidate every role's schema, move the
 * resource_version and drop the remote's fields while it is down: a health check must not change
 * what the engine serves. So the probe is one `query { __typename }` POSTed to the remote's URL
 * with its configured headers as the engine resolved them for real requests (including
 * `value_from_env`; a remote the engine holds inconsistent is resolved afresh), no client headers
 * and no session (there is no client), and a deadline of its `timeout_seconds` capped at
 * {@link PROBE_MAX_MS}. A remote is up when it answers that query without errors. The answer never
 * touches metadata. Concurrent probes share one round (and a finished round is reused for
 * {@link PROBE_REUSE_MS}), so a burst of `/readyz?remotes=true` cannot hammer a remote.
 * Errors name the remote's origin, never its path or query: `/readyz` needs no credentials, and
 * a URL may carry a token.
 */
import type { RemoteEndpoint } from './definition.ts';
import { postGraphql, RemoteCallError } from './http-client.ts';

/** Longest wait for one remote's answer. */
export const PROBE_MAX_MS = 3000;
/** How long a finished round of probes is reused. */
export const PROBE_REUSE_MS = 1000;

const QUERY = JSON.stringify({ query: 'query { __typename }' });

/** One remote's reachability. */
export interface RemoteProbe {
  readonly name: string;
  readonly ok: boolean;
  /** Why it is not reachable. */
  readonly error?: string;
  /** Time to the answer (or to the failure). */
  readonly latencyMs: number;
  /** The remote is inconsistent in the engine's metadata (it could not be introspected), and why. */
  readonly inconsistent?: string;
}

/** What to probe: a resolved endpoint, or why the definition cannot be resolved. */
export interface ProbeTarget {
  readonly name: string;
  readonly endpoint: RemoteEndpoint | { readonly reason: string };
  readonly inconsistent?: string;
}

/** Probes one remote schema. Never throws. */
export async function probeRemote(target: ProbeTarget): Promise<RemoteProbe> {
  const extra = target.inconsistent === undefined ? {} : { inconsistent: target.inconsistent };
  const ep = target.endpoint;
  if ('reason' in ep) return { name: target.name, ok: false, error: ep.reason, latencyMs: 0, ...extra };
  const headers: Record<string, string> = {};
  for (const [k, v] of ep.headers) headers[k.toLowerCase()] = v;
  const timeoutMs = Math.min(ep.timeoutMs, PROBE_MAX_MS);
  const started = performance.now();
  let error: string | undefined;
  try {
    const answer = await postGraphql({ url: ep.url, headers, body: QUERY, timeoutMs });
    if (answer.errors !== undefined && answer.errors.length > 0) {
      const first = answer.errors[0]?.['message'];
      error = `the remote schema answered an error: ${typeof first === 'string' ? first : JSON.stringify(answer.errors[0])}`;
    }
  } catch (e) {
    error = e instanceof RemoteCallError ? e.message : String(e);
  }
  const latencyMs = Math.round(performance.now() - started);
  return error === undefined
    ? { name: target.name, ok: true, latencyMs, ...extra }
    : { name: target.name, ok: false, error: hideUrl(error, ep.url), latencyMs, ...extra };
}

/** `message` with the remote's URL shown as its origin (see the Note). */
function hideUrl(message: string, url: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = '(the remote)';
  }
  return message.split(url).join(origin);
}

/**
 * Coalesces probes: a call while a round runs joins it, and a round that finished less than
 * {@link PROBE_REUSE_MS} ago for the same targets is answered again.
 */
export class RemoteProber {
  #round: { readonly of: unknown; readonly result: Promise<readonly RemoteProbe[]>; done: number | null } | null = null;

  /** Probes `targets` (all in parallel); `of` identifies them (a new catalog probes afresh). */
  async probe(of: unknown, targets: () => readonly ProbeTarget[]): Promise<readonly RemoteProbe[]> {
    const r = this.#round;
    if (r !== null && r.of === of && (r.done === null || performance.now() - r.done < PROBE_REUSE_MS)) return await r.result;
    const round = {
      of,
      result: Promise.all(targets().map(probeRemote)),
      done: null as number | null,
    };
    this.#round = round;
    void round.result.then(() => {
      round.done = performance.now();
    });
    return await round.result;
  }
}
