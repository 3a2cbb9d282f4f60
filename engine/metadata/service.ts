/**
 * The metadata service: owns the stored document, the catalog snapshot built
 * from it, and the source connections. Implements the metadata and legacy
 * query APIs for the HTTP layer (api/contract.ts `MetadataApi`).
 *
 * Calls are serialized in this process (one at a time), which keeps
 * "read state → edit → store" atomic here; between processes the store's
 * resource_version guard does the same (see Note [Metadata change propagation]
 * in store.ts).
 */
import type { ScheduledEventsApi } from '../events/scheduled/scheduled-events-api.ts';
import { randomUUID } from 'node:crypto';
import type { Session } from '../auth/session.ts';
import { buildCatalog } from '../catalog/build.ts';
import { CatalogRef } from '../catalog/snapshot.ts';
import { sourceBackend } from '../catalog/source-naming.ts';
import type { QueryChecker } from '../catalog/types.ts';
import { CatalogVersions, type CatalogStamp } from '../catalog/version.ts';
import { resolveEnv } from '../cli/env.ts';
import { SETTING_SPECS } from '../cli/settings.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, isEngineError } from '../errors/engine-error.ts';
import { apiErrorBody } from '../errors/wire-body.ts';
import type { Logger } from '../logger.ts';
import type { ApiFamily, ApiResponse, MetadataApi, Readiness, ReadinessCheck, RemoteReadinessCheck } from '../api/contract.ts';
import { EMPTY_DOCUMENT, normalizeDocument, tlsAllowlistOf, toWireDocument, type MetadataDocument } from '../model/document.ts';
import { installTlsAllowlist } from '../tls-allowlist.ts';
import { abandonEffects, commitWithEffects } from './effects.ts';
import { declareCaptureEffects } from './event-trigger-capture.ts';
import { keepEqualEntries } from './edit.ts';
import { Mutex } from './mutex.ts';
import type { ActionDataServices, MetadataState } from './operation.ts';
import { CallPipeline } from './run.ts';
import { DOCUMENT_STAMP_KEY, engineDocumentSchemas } from './document-schemas.ts';
import { assertValid } from '../model/schemas/validate.ts';
import { SourcePreparer, type Refresh } from '../backends/source-preparer.ts';
import { MetadataStore, type MetadataChange, type StoredMetadata } from './store.ts';
import { MetadataDatabase } from '../backends/registry.ts';
import { RemoteSchemaPreparer } from '../remote/remote-preparer.ts';
import { resolveEndpoint, remoteSchemaEntries } from '../remote/definition.ts';
import { RemoteProber, type ProbeTarget } from '../remote/probe.ts';
import { requireAdmin } from '../auth/require-admin.ts';

/** Options of {@link MetadataService.start}. */
export interface MetadataServiceOptions {
  /** Where metadata is stored (schema `engine_metadata`). */
  readonly metadataDatabaseUrl: string;
  /**
   * The metadata database at that URL, shared with async actions and
   * scheduled events (Note [Metadata database]); its opener closes it.
   * Absent: the service opens one and closes it with itself.
   */
  readonly metadataDatabase?: MetadataDatabase;
  /** The `default` source of a fresh engine, or null for none. */
  readonly defaultDatabaseUrl: string | null;
  /** Statement timeout of source connections in ms (0: none); see Note [Statement timeout] in backends/postgres/connection.ts. */
  readonly statementTimeoutMs?: number;
  readonly logger: Logger;
  /** Validates stored queries against the admin schema (engine/rest/query-check.ts); without it only their syntax. */
  readonly checkQueries?: QueryChecker;
  /** The scheduled events store of the metadata database (cron and one-off operations); absent: those operations answer not-supported. */
  readonly scheduledEvents?: ScheduledEventsApi;
}

/**
 * The document of a fresh engine: a `default` source when a database URL was
 * given. v2 compat: when that URL came from the environment, the source names
 * the variable (`{from_env: ENGINE_GRAPHQL_DATABASE_URL}`) rather than copying
 * it, so the password is not exported and a changed variable takes effect.
 */
function initialDocument(defaultDatabaseUrl: string | null): MetadataDocument {
  if (defaultDatabaseUrl === null) return EMPTY_DOCUMENT;
  const envName = SETTING_SPECS.find((s) => s.key === 'databaseUrl')?.env;
  const fromEnv = envName !== undefined && resolveEnv(envName) === defaultDatabaseUrl;
  return {
    ...EMPTY_DOCUMENT,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        tables: [],
        functions: [],
        configuration: { connection_info: { database_url: fromEnv ? { from_env: envName } : defaultDatabaseUrl } },
      },
    ],
  };
}

/** The stored document; validated unless this engine's stamp shows it wrote exactly this text (Note [Document stamp] in store.ts). */
function parseStoredDocument(stored: StoredMetadata): MetadataDocument {
  if (stored.written) return normalizeDocument(stored.metadata as Record<string, unknown>);
  const valid = assertValid<Record<string, unknown>>(engineDocumentSchemas.stored, stored.metadata, '$');
  return normalizeDocument(valid);
}

function toRefreshList(r: Refresh): readonly string[] | 'all' {
  return r === 'all' ? 'all' : [...r];
}

/** The answer of a refused call; `internal` is shown (every call that gets this far is an admin's). */
function errorResponse(e: EngineError): ApiResponse {
  return { status: e.status, json: apiErrorBody(e, true) };
}

/** The metadata service. */
export class MetadataService implements MetadataApi {
  /** The catalog snapshot in force; swapped on every change, local or from another instance. */
  readonly catalogRef: CatalogRef;
  readonly #store: MetadataStore;
  /** The metadata database when this service opened it (no `metadataDatabase` option). */
  #ownDatabase: MetadataDatabase | null = null;
  readonly #preparer: SourcePreparer;
  readonly #remotePreparer = new RemoteSchemaPreparer();
  readonly #remoteProber = new RemoteProber();
  /** Numbers every catalog this service builds, so installed snapshots are strictly increasing. */
  readonly #catalogVersions: CatalogVersions;
  readonly #logger: Logger;
  readonly #defaultDatabaseUrl: string | null;
  readonly #checkQueries: QueryChecker | undefined;
  #actionData: ActionDataServices | undefined;
  readonly #scheduledEvents: ScheduledEventsApi | null;
  readonly #mutex = new Mutex();
  #state: MetadataState;
  #closed = false;

  private constructor(store: MetadataStore, preparer: SourcePreparer, catalogVersions: CatalogVersions, state: MetadataState, opts: MetadataServiceOptions) {
    this.#store = store;
    this.#preparer = preparer;
    this.#catalogVersions = catalogVersions;
    this.#state = state;
    this.#logger = opts.logger;
    this.#defaultDatabaseUrl = opts.defaultDatabaseUrl;
    this.#checkQueries = opts.checkQueries;
    this.#scheduledEvents = opts.scheduledEvents ?? null;
    this.catalogRef = new CatalogRef(state.catalog);
    installTlsAllowlist(this, tlsAllowlistOf(state.doc));
  }

  /** Connects to the metadata database, loads (or initializes) metadata, builds the first catalog, starts watching. */
  static async start(opts: MetadataServiceOptions): Promise<MetadataService> {
    const ownDatabase = opts.metadataDatabase === undefined ? await MetadataDatabase.open(opts.metadataDatabaseUrl) : null;
    const db = opts.metadataDatabase ?? (ownDatabase as MetadataDatabase);
    let store: MetadataStore;
    try {
      store = await MetadataStore.open(db, randomUUID(), opts.logger, DOCUMENT_STAMP_KEY);
    } catch (e) {
      await ownDatabase?.close();
      throw e;
    }
    const preparer = new SourcePreparer(opts.logger, opts.statementTimeoutMs ?? 0, db);
    try {
      const stored = await store.loadOrInitialize(toWireDocument(initialDocument(opts.defaultDatabaseUrl)));
      const doc = parseStoredDocument(stored);
      const [prepared, remotes] = await Promise.all([preparer.prepare(doc, new Map(), 'all'), new RemoteSchemaPreparer().prepare(doc, new Map(), 'all')]);
      const catalogVersions = new CatalogVersions();
      const catalog = buildCatalog(doc, prepared, { version: catalogVersions.next(), resourceVersion: stored.resourceVersion }, opts.checkQueries, remotes);
      const service = new MetadataService(store, preparer, catalogVersions, { doc, resourceVersion: stored.resourceVersion, catalog, prepared, remotes }, opts);
      if (catalog.inconsistencies.length > 0) {
        opts.logger.log('metadata', 'warn', { message: 'metadata is inconsistent', inconsistent_objects: catalog.inconsistencies.length });
      }
      service.#ownDatabase = ownDatabase;
      await store.watch((c) => void service.#onRemoteChange(c));
      return service;
    } catch (e) {
      await preparer.closeAll();
      store.close();
      await ownDatabase?.close();
      throw e;
    }
  }

  /** Whether the metadata in force has no inconsistent objects. */
  isConsistent(): boolean {
    return this.#state.catalog.inconsistencies.length === 0;
  }
  /**
   * Reaches the metadata database and every source whose connection is open
   * (readiness). A source that failed when metadata was built is an
   * inconsistency, not a readiness failure: /healthz reports it, and
   * restarting the engine would not fix it.
   */
  async readiness(timeoutMs: number): Promise<Readiness> {
    const checks: Promise<ReadinessCheck>[] = [timedCheck('metadata', 'metadata database', () => this.#store.ping(), timeoutMs)];
    for (const p of this.#state.prepared.values()) {
      if (p.ok) {
        const ping = p.connection.ping?.bind(p.connection);
        if (ping !== undefined) checks.push(timedCheck('source', p.name, ping, timeoutMs));
      } else checks.push(Promise.resolve({ kind: 'source', name: p.name, ok: true, inconsistent: p.reason }));
    }
    const all = await Promise.all(checks);
    return { ready: all.every((c) => c.ok), checks: all };
  }

  /**
   * Probes every remote schema of the metadata in force, changing nothing (Note [Probing a remote
   * schema] in remote/probe.ts): a consistent one at the endpoint its requests use, an
   * inconsistent one at its definition resolved afresh.
   */
  async remoteReadiness(): Promise<readonly RemoteReadinessCheck[]> {
    const s = this.#state;
    return await this.#remoteProber.probe(s.remotes, () =>
      remoteSchemaEntries(s.doc.remote_schemas).map((entry): ProbeTarget => {
        const p = s.remotes.get(entry.name);
        if (p?.ok === true) return { name: entry.name, endpoint: p.endpoint };
        return { name: entry.name, endpoint: resolveEndpoint(entry.definition), inconsistent: p?.reason ?? 'not prepared' };
      }),
    );
  }

  /** `/v1alpha1/pg_dump`: v2's PGDumpReqBody (`source` defaults to `default`); a kind without a dump is not found, as in v2. */
  async dumpSource(body: unknown): Promise<string> {
    const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : null) as Record<string, unknown> | null;
    if (b === null) throw new EngineError(ErrorCode.ParseFailed, 'expected an object with "opts"', { path: '$' });
    const { source = 'default', opts, clean_output: clean = false } = b;
    if (typeof source !== 'string') throw new EngineError(ErrorCode.ParseFailed, 'expected a string', { path: '$.source' });
    if (!Array.isArray(opts) || !opts.every((o) => typeof o === 'string')) {
      throw new EngineError(ErrorCode.ParseFailed, 'expected an array of strings', { path: '$.opts' });
    }
    if (typeof clean !== 'boolean') throw new EngineError(ErrorCode.ParseFailed, 'expected a boolean', { path: '$.clean_output' });
    const ref = this.#state.doc.sources.find((s) => s.name === source);
    const prepared = this.#state.prepared.get(source);
    const backend = ref === undefined ? undefined : sourceBackend(ref, this.#state.prepared);
    if (ref === undefined || backend?.dump === undefined) throw new EngineError(ErrorCode.NotFound, `source "${source}" not found`, { path: '$', status: 400 });
    if (prepared?.ok !== true) {
      throw new EngineError(ErrorCode.NotFound, `source "${source}" is inconsistent: ${prepared?.reason ?? 'not prepared'}`, { path: '$', status: 400 });
    }
    return await backend.dump(prepared.connection, opts as string[], clean, resolveEnv);
  }

  /** Handles one body of /v1/metadata, /v1/query or /v2/query. Never throws for bad input. */
  async handle(api: ApiFamily, body: unknown, session: Session): Promise<ApiResponse> {
    try {
      requireAdmin(session, '$.args');
      const call = parseBody(body);
      return await this.#mutex.run(async () => await this.#run(api, call));
    } catch (e) {
      if (isEngineError(e)) return errorResponse(e);
      this.#logger.log('metadata', 'error', { message: 'metadata call failed', error: e });
      return errorResponse(new EngineError(ErrorCode.Unexpected, 'an unexpected error occurred', { status: 500 }));
    }
  }

  async #run(api: ApiFamily, call: ParsedBody): Promise<ApiResponse> {
    if (this.#closed) throw new EngineError(ErrorCode.Unexpected, 'the engine is shutting down', { status: 503 });
    const before = this.#state;
    if (call.resourceVersion !== undefined && call.resourceVersion !== before.resourceVersion) {
      throw new EngineError(
        ErrorCode.Conflict,
        `resource version mismatch: the metadata is at ${before.resourceVersion}, the request was made for ${call.resourceVersion}`,
        { path: '$' },
      );
    }
    // reload_metadata re-reads its sources anyway: checking first would read them twice.
    const fresh = call.type === 'reload_metadata' ? { state: before, stale: new Set<string>() } : await this.#freshen();
    const freshened = fresh.stale;
    const pipeline = new CallPipeline({
      api,
      state: fresh.state,
      preparer: this.#preparer,
      remotePreparer: this.#remotePreparer,
      defaultDatabaseUrl: this.#defaultDatabaseUrl,
      metadataDatabaseUrl: this.#store.url,
      catalogVersions: this.#catalogVersions,
      checkQueries: this.#checkQueries,
      ...(this.#actionData === undefined ? {} : { actionData: this.#actionData }),
      scheduledEvents: this.#scheduledEvents,
    });
    let result;
    let outcome;
    try {
      result = await pipeline.runCall({ type: call.type, args: call.args, version: call.version, path: '$', legacy: api !== 'metadata' });
      await declareCaptureEffects(pipeline, fresh.state, this.#preparer);
      const next = pipeline.state;
      outcome = await commitWithEffects(pipeline.effects, pipeline.changed, async (within, alongside) => {
        // Sources re-read before the call are announced too, so other instances re-read them.
        const refreshed = toRefreshList(pipeline.refreshed === 'all' ? 'all' : new Set([...pipeline.refreshed, ...freshened]));
        return await this.#store.save(toWireDocument(next.doc), before.resourceVersion, refreshed, within, alongside);
      });
      if (outcome.stored !== undefined) {
        const version = outcome.stored;
        this.#install({ ...next, resourceVersion: version, catalog: { ...next.catalog, resourceVersion: version } });
      } else if (fresh.state !== before) this.#install(fresh.state);
    } catch (e) {
      await abandonEffects(pipeline.effects);
      if (fresh.state !== before) this.#install(fresh.state);
      // Connections opened for a refused edit are not kept.
      this.#preparer.retain(this.#state.prepared);
      throw e;
    }
    if (outcome.failed.length > 0) {
      // The metadata is stored, but some SQL did not commit: the catalog must see the databases as they are.
      const sources = new Set(pipeline.refreshed === 'all' ? this.#state.doc.sources.map((s) => s.name) : pipeline.refreshed);
      await this.#refreshCommitted(sources);
      const why = outcome.failed.map((f) => `${f.effect.description}: ${f.error instanceof Error ? f.error.message : String(f.error)}`);
      throw new EngineError(ErrorCode.Unexpected, `the metadata was stored, but committing failed for ${why.join('; ')}`, {
        path: '$',
        status: 500,
      });
    }
    return { status: result.status ?? 200, json: result.response };
  }

  /**
   * Re-reads the sources whose catalog changed outside the engine: the state
   * to run the call on, and their names. The caller installs it (once, with or
   * instead of the call's result: each install warms the role schemas again).
   * See Note [Introspection freshness] in backends/source-preparer.ts.
   */
  async #freshen(): Promise<{ state: MetadataState; stale: ReadonlySet<string> }> {
    const s = this.#state;
    const stale = await this.#preparer.stale(s.doc, s.prepared);
    if (stale.size === 0) return { state: s, stale };
    const prepared = await this.#preparer.prepare(s.doc, s.prepared, stale);
    return {
      state: { ...s, prepared, catalog: buildCatalog(s.doc, prepared, this.#stamp(s.resourceVersion), this.#checkQueries, s.remotes, s.catalog) },
      stale,
    };
  }

  async #refreshCommitted(sources: ReadonlySet<string>): Promise<void> {
    try {
      const s = this.#state;
      const prepared = await this.#preparer.prepare(s.doc, s.prepared, sources);
      this.#install({ ...s, prepared, catalog: buildCatalog(s.doc, prepared, this.#stamp(s.resourceVersion), this.#checkQueries, s.remotes, s.catalog) });
    } catch (e) {
      this.#logger.log('metadata', 'error', { message: 'could not re-introspect after a failed request', error: e });
    }
  }

  #stamp(resourceVersion: number): CatalogStamp {
    return { version: this.#catalogVersions.next(), resourceVersion };
  }

  #install(next: MetadataState): void {
    this.#state = next;
    installTlsAllowlist(this, tlsAllowlistOf(next.doc));
    this.#preparer.retain(next.prepared);
    this.catalogRef.swap(next.catalog);
  }

  async #onRemoteChange(change: MetadataChange): Promise<void> {
    await this.#mutex.run(async () => {
      if (this.#closed) return;
      try {
        const stored = await this.#store.load();
        if (stored === null || stored.resourceVersion <= this.#state.resourceVersion) return;
        const doc = keepEqualEntries(this.#state.doc, parseStoredDocument(stored));
        const refresh: Refresh = change.refreshed === 'all' ? 'all' : new Set(change.refreshed);
        const [prepared, remotes] = await Promise.all([
          this.#preparer.prepare(doc, this.#state.prepared, refresh),
          this.#remotePreparer.prepare(doc, this.#state.remotes, refresh),
        ]);
        const catalog = buildCatalog(doc, prepared, this.#stamp(stored.resourceVersion), this.#checkQueries, remotes, this.#state.catalog);
        this.#install({ doc, resourceVersion: stored.resourceVersion, catalog, prepared, remotes });
        this.#logger.log('schema-sync', 'info', { message: 'metadata reloaded after a change by another instance', resource_version: stored.resourceVersion });
      } catch (e) {
        this.#logger.log('schema-sync', 'error', { message: 'could not apply a metadata change from another instance', error: e });
      }
    });
  }

  /** Stops watching for changes and closes every connection. */
  /** Attaches the asynchronous action store (boot.ts), for drop_action's `clear_data`. */
  attachActionData(data: ActionDataServices): void {
    this.#actionData = data;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#mutex.run(async () => {
      this.#closed = true;
    });
    this.#store.close();
    installTlsAllowlist(this, []);
    await this.#preparer.closeAll();
    await this.#ownDatabase?.close();
  }
}

/** A request body after the envelope checks. */
interface ParsedBody {
  readonly type: string;
  readonly args: unknown;
  readonly version: number | undefined;
  readonly resourceVersion: number | undefined;
}

/** Checks the `{type, args, version?, resource_version?}` envelope. */
function parseBody(body: unknown): ParsedBody {
  let value = body;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new EngineError(ErrorCode.InvalidJson, `invalid JSON: ${e instanceof Error ? e.message : String(e)}`, { path: '$' });
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EngineError(ErrorCode.ParseFailed, 'the request body must be a JSON object', { path: '$' });
  }
  const r = value as Record<string, unknown>;
  if (typeof r['type'] !== 'string') {
    throw new EngineError(ErrorCode.ParseFailed, r['type'] === undefined ? 'key "type" not found' : 'expected String', {
      path: r['type'] === undefined ? '$' : '$.type',
    });
  }
  const version = r['version'];
  if (version !== undefined && (typeof version !== 'number' || !Number.isInteger(version))) {
    throw new EngineError(ErrorCode.ParseFailed, 'expected Integer', { path: '$.version' });
  }
  const rv = r['resource_version'];
  if (rv !== undefined && rv !== null && (typeof rv !== 'number' || !Number.isInteger(rv))) {
    throw new EngineError(ErrorCode.ParseFailed, 'expected Integer', { path: '$.resource_version' });
  }
  return {
    type: r['type'],
    args: r['args'],
    version: version as number | undefined,
    resourceVersion: rv === null ? undefined : (rv as number | undefined),
  };
}

/** Runs one readiness check with a deadline. */
async function timedCheck(kind: ReadinessCheck['kind'], name: string, ping: () => Promise<void>, timeoutMs: number): Promise<ReadinessCheck> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([ping(), deadline]);
    return { kind, name, ok: true };
  } catch (e) {
    return { kind, name, ok: false, error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}
