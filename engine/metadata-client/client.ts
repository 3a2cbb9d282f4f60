/**
 * A typed client of the engine's metadata API (`POST /v1/metadata`) over HTTP, authenticated with
 * the admin secret. Shared by the Kubernetes controller and the `engine` project commands
 * (engine/cli/project/): both are clients of a running engine and import nothing of its internals
 * but the document model (architecture.md layering).
 */
import { normalizeDocument, toWireDocument, type MetadataDocument } from '../model/document.ts';

/** One entry of `get_inconsistent_metadata`'s `inconsistent_objects`. */
export interface InconsistentObject {
  readonly type: string;
  readonly name?: string;
  readonly reason: string;
  readonly definition?: unknown;
  readonly id?: string;
}

/** The engine could not be reached, timed out, or answered 5xx: retry later. */
export class EngineUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineUnreachableError';
  }
}

/** The engine answered 4xx: `{path, error, code}`. */
export class MetadataApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly path: string;
  readonly body: unknown;

  constructor(status: number, code: string, path: string, message: string, body: unknown) {
    super(message);
    this.name = 'MetadataApiError';
    this.status = status;
    this.code = code;
    this.path = path;
    this.body = body;
  }

  /** True for the 409 of a stale resource_version. */
  get isConflict(): boolean {
    return this.status === 409;
  }

  /** True when the engine refused the admin secret (a human must fix the Secret). */
  get isAccessDenied(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** `export_metadata` version 2. */
export interface ExportedMetadata {
  readonly resourceVersion: number;
  readonly metadata: MetadataDocument;
}

/** `get_inconsistent_metadata` (and the answer of replace_metadata with inconsistencies allowed). */
export interface ConsistencyReport {
  readonly isConsistent: boolean;
  readonly inconsistentObjects: readonly InconsistentObject[];
}

/** `get_resource_version`: the cheap state the controller polls. */
export interface EngineState {
  readonly resourceVersion: number;
  readonly inconsistentObjects: number;
}

/** Where the engine is and how to authenticate. */
export interface EngineClientOptions {
  /** Base URL, e.g. `http://engine.ns.svc:8080`. */
  readonly url: string;
  readonly adminSecret?: string;
  /** Per-request timeout. Default 10 s. */
  readonly timeoutMs?: number;
}

/** The metadata API of one engine. */
export class EngineClient {
  readonly url: string;
  readonly #adminSecret: string | undefined;
  readonly #timeoutMs: number;

  constructor(opts: EngineClientOptions) {
    this.url = opts.url.replace(/\/$/, '');
    this.#adminSecret = opts.adminSecret;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** Sends one call to `/v1/metadata` (or `path`: `/v2/query` for run_sql) and answers its JSON body. */
  async call<T>(body: Record<string, unknown>, path = '/v1/metadata'): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-engine-role': 'admin' };
    if (this.#adminSecret !== undefined) headers['x-engine-admin-secret'] = this.#adminSecret;
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new EngineUnreachableError(`${this.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      json = text;
    }
    if (res.status >= 500) throw new EngineUnreachableError(`${this.url}: HTTP ${res.status} ${text.slice(0, 500)}`);
    if (!res.ok) {
      const e = (typeof json === 'object' && json !== null ? json : {}) as { code?: string; path?: string; error?: string };
      throw new MetadataApiError(res.status, e.code ?? `http-${res.status}`, e.path ?? '$', e.error ?? text.slice(0, 2000), json);
    }
    return json as T;
  }

  /**
   * `get_resource_version` (resource_version and the number of inconsistent objects, without the
   * document). An engine without the operation answers 400 parse-failed; then export_metadata
   * (heavier) and get_inconsistent_metadata give the same.
   */
  async getState(): Promise<EngineState> {
    try {
      const r = await this.call<{ resource_version: number; inconsistent_objects: number }>({ type: 'get_resource_version', args: {} });
      return { resourceVersion: r.resource_version, inconsistentObjects: r.inconsistent_objects };
    } catch (e) {
      if (!(e instanceof MetadataApiError) || e.code !== 'parse-failed') throw e;
    }
    const [exported, report] = [await this.exportMetadata(), await this.getInconsistentMetadata()];
    return { resourceVersion: exported.resourceVersion, inconsistentObjects: report.inconsistentObjects.length };
  }

  /** `export_metadata` version 2, normalized. */
  async exportMetadata(): Promise<ExportedMetadata> {
    const r = await this.call<{ resource_version: number; metadata: Record<string, unknown> }>({ type: 'export_metadata', version: 2, args: {} });
    return { resourceVersion: r.resource_version, metadata: normalizeDocument(r.metadata) };
  }

  /**
   * `replace_metadata` version 2 with optimistic concurrency and inconsistencies allowed (they are
   * reported on the resources instead). Throws MetadataApiError with isConflict on a stale version.
   */
  async replaceMetadata(doc: MetadataDocument, resourceVersion: number): Promise<ConsistencyReport> {
    const r = await this.call<{ is_consistent?: boolean; inconsistent_objects?: InconsistentObject[] } | null>({
      type: 'replace_metadata',
      version: 2,
      resource_version: resourceVersion,
      args: { allow_inconsistent_metadata: true, metadata: toWireDocument(doc) },
    });
    return { isConsistent: r?.is_consistent ?? true, inconsistentObjects: r?.inconsistent_objects ?? [] };
  }

  /** `get_inconsistent_metadata`. */
  async getInconsistentMetadata(): Promise<ConsistencyReport> {
    const r = await this.call<{ is_consistent: boolean; inconsistent_objects: InconsistentObject[] } | InconsistentObject[]>({
      type: 'get_inconsistent_metadata',
      args: {},
    });
    // Legacy shape: a bare list.
    if (Array.isArray(r)) return { isConsistent: r.length === 0, inconsistentObjects: r };
    return { isConsistent: r.is_consistent, inconsistentObjects: r.inconsistent_objects ?? [] };
  }
}

/** What {@link applyDocument} did. */
export interface ApplyResult {
  /** True when replace_metadata was called (false: the document was already as desired). */
  readonly wrote: boolean;
  /** resource_version of the export the desired document was built from. */
  readonly exportedResourceVersion: number;
  /** How many 409 conflicts were retried. */
  readonly conflicts: number;
}

/**
 * Export → build the desired document → replace_metadata with the exported resource_version,
 * re-exporting and rebuilding on 409 (someone else wrote in between). `build` answers null when
 * nothing needs writing; `dryRun` builds without writing. See Note [Fold and replace] in
 * reconcilers/fold.ts.
 */
export async function applyDocument<T extends { readonly desired: MetadataDocument; readonly changed: boolean }>(
  client: EngineClient,
  build: (current: ExportedMetadata) => T,
  maxConflicts = 5,
  dryRun = false,
): Promise<ApplyResult & { readonly built: T }> {
  for (let conflicts = 0; ; conflicts++) {
    const current = await client.exportMetadata();
    const built = build(current);
    if (!built.changed || dryRun) return { wrote: false, exportedResourceVersion: current.resourceVersion, conflicts, built };
    try {
      await client.replaceMetadata(built.desired, current.resourceVersion);
      return { wrote: true, exportedResourceVersion: current.resourceVersion, conflicts, built };
    } catch (e) {
      if (e instanceof MetadataApiError && e.isConflict && conflicts < maxConflicts) continue;
      throw e;
    }
  }
}
