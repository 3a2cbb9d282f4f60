/**
 * Every replica of an engine behind a Service, and what each says about the metadata (issue 36.4).
 *
 * Note [Every replica, and what is inconsistent]
 * An engine with several replicas (an Engine with spec.deployment, or a serviceRef) is one
 * metadata document but several processes: each reloads on its own and checks its own remote
 * schemas, sources and environment, so one replica can list an object inconsistent that another
 * does not, or still show a state another has left. Asking "the Service" reaches one replica at
 * random, so a stale Failed (or Ready) status could stay for minutes. So the controller reads the
 * Service's EndpointSlices (ready endpoints only) and asks each replica directly:
 * - the reconcile writes through one replica (the document is shared) and builds the status from
 *   every replica at the newest resource_version, the union of their inconsistencies, an object
 *   inconsistent on only some replicas saying on which (replicas still behind are left out: they
 *   catch up within a moment and the poll notices);
 * - the poll compares a fingerprint of what every replica says (its resource_version and a digest
 *   of its inconsistent objects with their reasons), not the number of inconsistent objects: the
 *   count stays the same when one object is fixed and another breaks, or when a replica flips.
 * Without EndpointSlices (an Engine with spec.url, no RBAC, no endpoints yet) it is one address, as
 * before, still compared by digest.
 *
 * Note [A source that dies while the engine runs]
 * A source the engine prepared stays consistent in get_inconsistent_metadata when its database goes
 * away (queries fail; v2 is the same). Reloading it to find out would cost a catalog read of the
 * database every time and drop its tables from the schema at each blip. The engine's
 * `/readyz` already pings every open source (Note [Readiness] in engine/server/routes/health.ts),
 * so each replica's readiness is read with its inconsistencies, and a source whose ping fails is
 * added to that replica's report as an inconsistent source whose reason is a connection error
 * (`definition.readiness: true`, so it is never reloaded: it heals when the ping answers). The
 * digest and the poll see it like any other, the Source reports RemoteUnavailable and what lives
 * in it says it depends on it. An engine without `/readyz` (v2) is read as before. Remote schemas
 * are found the same way, through `/readyz?remotes=true` every remoteCheckSeconds (Note [A remote
 * that dies while the engine runs] in engine-reconciler.ts).
 */
import { createHash } from 'node:crypto';
import type { Engine } from '../api/v1alpha1/engine.ts';
import {
  EngineClient,
  EngineUnreachableError,
  type ConsistencyReport,
  type EngineClientOptions,
  type InconsistentObject,
} from '../../engine/metadata-client/client.ts';
import { KubeApiError, type KubeApi, type KubeList } from '../runtime/kube-api.ts';

/** What one replica said. */
export interface ReplicaView {
  readonly url: string;
  readonly state: { readonly resourceVersion: number; readonly report: ConsistencyReport } | 'unreachable';
}

function objectKey(o: InconsistentObject): string {
  return JSON.stringify([o.type, o.name ?? null, o.reason]);
}

/** A digest of the inconsistent objects and their reasons (order-independent). */
export function inconsistencyDigest(objects: readonly InconsistentObject[]): string {
  const keys = objects.map(objectKey).sort();
  return createHash('sha256').update(keys.join('\n')).digest('hex').slice(0, 16);
}

/** The fingerprint the poll compares: every replica's resource_version and digest. */
export function fingerprint(views: readonly ReplicaView[]): string {
  return [...views]
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
    .map(
      (v) => `${v.url}=${v.state === 'unreachable' ? 'unreachable' : `${v.state.resourceVersion}:${inconsistencyDigest(v.state.report.inconsistentObjects)}`}`,
    )
    .join(' ');
}

/** Default seconds between two remote probes of an Engine's replicas (Note [A remote that dies while the engine runs] in engine-reconciler.ts). */
export const DEFAULT_REMOTE_CHECK_SECONDS = 30;

/** How the reason of a failed readiness ping reads (Note [A source that dies while the engine runs]). */
export const READINESS_REASON = "the engine's readiness check";

/** True for an inconsistency the controller made up from a failed readiness ping (never reloaded). */
export function isReadinessFinding(o: InconsistentObject): boolean {
  return typeof o.definition === 'object' && o.definition !== null && (o.definition as { readiness?: unknown }).readiness === true;
}

interface ReadinessAnswer {
  readonly checks?: readonly { readonly kind?: string; readonly name?: string; readonly ok?: boolean; readonly error?: string }[];
  readonly remotes?: readonly { readonly name?: string; readonly ok?: boolean; readonly error?: string; readonly inconsistent?: string }[];
}

/** Something a replica's /readyz found down. */
export interface Down {
  readonly name: string;
  readonly error: string;
}

/** What one replica's /readyz said: sources down, and remote schemas down when they were probed (else null). */
interface ReadinessFindings {
  readonly sources: Down[];
  readonly remotes: Down[] | null;
}

/**
 * The sources whose readiness ping failed on one replica and, with `remotes`, the remote schemas
 * its probe found down (Note [A remote that dies while the engine runs] in engine-reconciler.ts);
 * nothing when it has no usable /readyz. See Note [A source that dies while the engine runs].
 */
async function readinessOf(url: string, timeoutMs: number, remotes: boolean, adminSecret: string | undefined): Promise<ReadinessFindings> {
  try {
    // The remote probe answers only to the admin secret when the engine has one (Note [Readiness]).
    const headers: Record<string, string> = remotes && adminSecret !== undefined ? { 'x-engine-admin-secret': adminSecret } : {};
    const r = await fetch(`${url.replace(/\/$/, '')}/readyz${remotes ? '?remotes=true' : ''}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (r.status !== 200 && r.status !== 503) return { sources: [], remotes: null };
    const body = (await r.json()) as ReadinessAnswer;
    const sources = (body.checks ?? []).flatMap((c) =>
      c.kind === 'source' && c.ok === false && typeof c.name === 'string' ? [{ name: c.name, error: c.error ?? 'no answer' }] : [],
    );
    // A remote the engine holds inconsistent is in its inconsistency list already (and reloaded with backoff).
    const down = !remotes
      ? null
      : (body.remotes ?? []).flatMap((c) =>
          c.ok === false && typeof c.name === 'string' && c.inconsistent === undefined ? [{ name: c.name, error: c.error ?? 'no answer' }] : [],
        );
    return { sources, remotes: down };
  } catch {
    // Not there, not JSON, too slow: the metadata API's own answer is what we know.
    return { sources: [], remotes: null };
  }
}

/**
 * The last remote probe of each replica, shared by the reconcile and the poll so that both see the
 * same findings between two probes (Note [A remote that dies while the engine runs] in
 * engine-reconciler.ts).
 */
export class RemoteChecks {
  readonly #last = new Map<string, { readonly at: number; readonly down: readonly Down[] }>();
  /** Probes sent, for tests and metrics. */
  probes = 0;

  /** Whether `url` is due for a probe every `everyMs`. */
  due(url: string, everyMs: number, now = Date.now()): boolean {
    const last = this.#last.get(url);
    return everyMs > 0 && (last === undefined || now - last.at >= everyMs);
  }

  record(url: string, down: readonly Down[], now = Date.now()): void {
    this.#last.set(url, { at: now, down });
  }

  /** What the last probe of `url` found down (nothing when never probed). */
  down(url: string): readonly Down[] {
    return this.#last.get(url)?.down ?? [];
  }

  /** Forgets replicas (an Engine deleted, its check turned off). */
  forget(urls: Iterable<string>): void {
    for (const u of urls) this.#last.delete(u);
  }
}

/** How often, and where, observeReplicas remembers remote probes. */
export interface RemoteCheckOptions {
  readonly checks: RemoteChecks;
  /** 0: never probe (and report no remote down). */
  readonly everyMs: number;
}

/** `report` with the sources whose ping failed added as inconsistent (unless already listed). */
export function withSourcesDown(report: ConsistencyReport, down: readonly { name: string; error: string }[]): ConsistencyReport {
  const listed = new Set(report.inconsistentObjects.filter((o) => o.type === 'source').map((o) => o.name?.replace(/^source /, '')));
  const extra: InconsistentObject[] = down
    .filter((d) => !listed.has(d.name))
    .map((d) => ({
      type: 'source',
      name: `source ${d.name}`,
      definition: { name: d.name, readiness: true },
      reason: `could not reach the source (${READINESS_REASON}: ${d.error})`,
    }));
  if (extra.length === 0) return report;
  const objects = [...report.inconsistentObjects, ...extra];
  return { isConsistent: false, inconsistentObjects: objects };
}

/** `report` with the remote schemas the engine's probe found down added as inconsistent (unless already listed). */
export function withRemotesDown(report: ConsistencyReport, down: readonly Down[]): ConsistencyReport {
  const listed = new Set(report.inconsistentObjects.filter((o) => o.type === 'remote_schema').map((o) => o.name?.replace(/^remote_schema /, '')));
  const extra: InconsistentObject[] = down
    .filter((d) => !listed.has(d.name))
    .map((d) => ({
      type: 'remote_schema',
      name: `remote_schema ${d.name}`,
      definition: { name: d.name, readiness: true },
      reason: `could not reach the remote schema (${READINESS_REASON}: ${d.error})`,
    }));
  if (extra.length === 0) return report;
  return { isConsistent: false, inconsistentObjects: [...report.inconsistentObjects, ...extra] };
}

/**
 * Asks every replica for its resource_version, inconsistencies and sources down (in parallel);
 * with `remotes`, a replica due for a remote probe is asked `/readyz?remotes=true` instead, and the
 * remote schemas its last probe found down are added as well.
 */
export async function observeReplicas(urls: readonly string[], base: EngineClientOptions, remotes?: RemoteCheckOptions): Promise<ReplicaView[]> {
  return await Promise.all(
    urls.map(async (url): Promise<ReplicaView> => {
      const client = new EngineClient({ ...base, url });
      try {
        const state = await client.getState();
        const probe = remotes !== undefined && remotes.checks.due(url, remotes.everyMs);
        const [report, found] = await Promise.all([
          client.getInconsistentMetadata(),
          readinessOf(url, base.timeoutMs ?? 10_000, probe, base.adminSecret ?? undefined),
        ]);
        if (probe && found.remotes !== null) {
          remotes.checks.probes++;
          remotes.checks.record(url, found.remotes);
        }
        const remotesDown = remotes === undefined || remotes.everyMs <= 0 ? [] : remotes.checks.down(url);
        return { url, state: { resourceVersion: state.resourceVersion, report: withRemotesDown(withSourcesDown(report, found.sources), remotesDown) } };
      } catch (e) {
        if (e instanceof EngineUnreachableError) return { url, state: 'unreachable' };
        throw e;
      }
    }),
  );
}

/**
 * One report from every replica at the newest resource_version: the union of their inconsistent
 * objects; an object only some list says on which. Null when no replica answered.
 */
export function mergeReports(views: readonly ReplicaView[]): { report: ConsistencyReport; resourceVersion: number; behind: string[] } | null {
  const answered = views.flatMap((v) => (v.state === 'unreachable' ? [] : [{ url: v.url, ...v.state }]));
  if (answered.length === 0) return null;
  const newest = Math.max(...answered.map((a) => a.resourceVersion));
  const current = answered.filter((a) => a.resourceVersion === newest);
  const behind = answered.filter((a) => a.resourceVersion !== newest).map((a) => a.url);
  const seen = new Map<string, { o: InconsistentObject; on: string[] }>();
  for (const a of current) {
    for (const o of a.report.inconsistentObjects) {
      const k = objectKey(o);
      const e = seen.get(k);
      if (e === undefined) seen.set(k, { o, on: [a.url] });
      else e.on.push(a.url);
    }
  }
  const objects = [...seen.values()].map(({ o, on }) =>
    on.length === current.length ? o : { ...o, reason: `${o.reason} (on ${on.length} of ${current.length} replicas: ${on.join(', ')})` },
  );
  return { report: { isConsistent: objects.length === 0, inconsistentObjects: objects }, resourceVersion: newest, behind };
}

interface EndpointSlice {
  readonly ports?: readonly { readonly name?: string; readonly port?: number }[] | null;
  readonly endpoints?: readonly { readonly addresses: readonly string[]; readonly conditions?: { readonly ready?: boolean | null } }[] | null;
}

/** The Service in front of an Engine's replicas and its scheme, or null (spec.url). */
export function serviceOf(e: Engine): { name: string; scheme: string } | null {
  if (e.spec.url !== undefined) return null;
  if (e.spec.deployment !== undefined) return { name: e.metadata.name, scheme: 'http' };
  const s = e.spec.serviceRef;
  return s === undefined ? null : { name: s.name, scheme: s.scheme ?? 'http' };
}

/**
 * The URLs of the ready endpoints of an Engine's Service, sorted; null when there is no Service,
 * no ready endpoint, or the operator may not list EndpointSlices (then the Service's address is
 * used, as before). Endpoints whose slice has several ports use the one named `http`.
 */
export async function endpointUrls(kube: KubeApi, e: Engine): Promise<string[] | null> {
  const svc = serviceOf(e);
  if (svc === null) return null;
  const selector = encodeURIComponent(`kubernetes.io/service-name=${svc.name}`);
  let list: KubeList<EndpointSlice>;
  try {
    list = await kube.request<KubeList<EndpointSlice>>(
      'GET',
      `/apis/discovery.k8s.io/v1/namespaces/${e.metadata.namespace}/endpointslices?labelSelector=${selector}`,
    );
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 403 || err.status === 404)) return null;
    throw err;
  }
  const urls = new Set<string>();
  for (const slice of list.items) {
    const ports = slice.ports ?? [];
    const port = ports.length === 1 ? ports[0]?.port : ports.find((p) => p.name === 'http')?.port;
    if (port === undefined) continue;
    for (const ep of slice.endpoints ?? []) {
      if (ep.conditions?.ready === false) continue;
      for (const a of ep.addresses) urls.add(`${svc.scheme}://${a.includes(':') ? `[${a}]` : a}:${port}`);
    }
  }
  return urls.size === 0 ? null : [...urls].sort();
}
