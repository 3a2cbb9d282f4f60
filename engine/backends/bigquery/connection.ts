/**
 * A BigQuery source as a SourceConnection: one query job per statement (a
 * request's statement per source), with named, typed parameters. There is no
 * pool and no transaction: `transactionJsonText` is absent, and the backend
 * offers no mutations.
 *
 * Note [BigQuery jobs]
 * A statement runs as a query job (jobs.insert, then getQueryResults until it
 * is done), not through the one-call jobs.query: a failed job then always
 * reaches us as an error (an emulator answers jobs.query with HTTP 200 and
 * `errors`, which the client does not read). A request cancelled by its
 * client cancels its job (jobs.cancel); a role's time limit or the engine's
 * statement timeout is the job's `jobTimeoutMs`. The source's
 * `global_select_limit` is the named parameter `@global_select_limit`,
 * bound here, so that compiled plans do not depend on a source's settings.
 */
import type { BigQuery, Job, Query, QueryResultsOptions } from '@google-cloud/bigquery';
import { bigqueryClient, googleAuth } from './driver.ts';
import type { BoundStatement, RunOptions, SourceConnection } from '../backend.ts';
import type { ParamType } from '../sql/fragment.ts';
import type { BigQuerySettings } from './configuration.ts';
import { canonicalType } from './scalars.ts';

/** The name of the parameter holding the source's `global_select_limit`. */
export const GLOBAL_SELECT_LIMIT = 'global_select_limit';

/** A parameter type as the client takes it: `'INT64'`, `['STRING']` for arrays. */
type ClientType = string | string[];

function scalarType(t: ParamType): string {
  const c = canonicalType(t.dbType);
  // Nested values are compared as their JSON text.
  return c === 'STRUCT' || c === 'ARRAY' ? 'JSON' : c;
}

/** The type of a value whose slot has none (engine constants): from the JS value. */
function inferred(v: unknown): ClientType {
  if (Array.isArray(v)) {
    const first = v.find((x) => x !== null && x !== undefined);
    const t = first === undefined ? 'STRING' : inferred(first);
    return [typeof t === 'string' ? t : 'STRING'];
  }
  if (typeof v === 'number') return Number.isInteger(v) ? 'INT64' : 'FLOAT64';
  if (typeof v === 'bigint') return 'INT64';
  if (typeof v === 'boolean') return 'BOOL';
  return 'STRING';
}

/** The value as the client sends it for `type`. */
function clientValue(v: unknown, type: ClientType): unknown {
  if (v === undefined) return null;
  if (type === 'JSON' && v !== null && typeof v !== 'string') return JSON.stringify(v);
  if (Array.isArray(type) && v !== null && !Array.isArray(v)) return [v];
  if (typeof v === 'bigint') return v.toString();
  return v;
}

/** The named parameters and their types of a bound statement. */
export function namedParams(stmt: BoundStatement, globalSelectLimit: number): { params: Record<string, unknown>; types: Record<string, ClientType> } {
  const params: Record<string, unknown> = {};
  const types: Record<string, ClientType> = {};
  stmt.values.forEach((v, i) => {
    const t = stmt.types?.[i] ?? null;
    const type: ClientType = t === null ? inferred(v) : t.list ? [scalarType(t)] : scalarType(t);
    params[`p${i + 1}`] = clientValue(v, type);
    types[`p${i + 1}`] = type;
  });
  if (stmt.text.includes(`@${GLOBAL_SELECT_LIMIT}`)) {
    params[GLOBAL_SELECT_LIMIT] = globalSelectLimit;
    types[GLOBAL_SELECT_LIMIT] = 'INT64';
  }
  return { params, types };
}

/** A job cancelled by its request. */
export class JobCancelledError extends Error {
  constructor() {
    super('the request was cancelled');
    this.name = 'JobCancelledError';
  }
}

/** The connection of one BigQuery source configuration. */
export class BigQueryConnection implements SourceConnection {
  readonly kind = 'bigquery';
  readonly client: BigQuery;
  readonly settings: BigQuerySettings;
  #closed = false;

  constructor(settings: BigQuerySettings) {
    this.settings = settings;
    const auth =
      settings.apiEndpoint === null
        ? { credentials: { client_email: settings.credentials.client_email, private_key: settings.credentials.private_key } }
        : // Note [BigQuery endpoint]: an emulator takes no credentials.
          { apiEndpoint: settings.apiEndpoint, authClient: new (googleAuth().PassThroughClient)() };
    this.client = new (bigqueryClient().BigQuery)({
      projectId: settings.projectId,
      ...auth,
      retryOptions: { autoRetry: settings.retryLimit > 0, maxRetries: settings.retryLimit, retryDelayMultiplier: 2, totalTimeout: 600 },
    });
    // The client takes BIGQUERY_EMULATOR_HOST from process.env as its whole base URL (path included),
    // unlike Google's other clients: the endpoint resolved from the source's environment decides.
    if (settings.apiEndpoint !== null) this.client.baseUrl = `${settings.apiEndpoint}/bigquery/v2`;
  }

  /** Runs `query` as a job (Note [BigQuery jobs]); the rows of its result, parsed as `results` says. */
  async run(query: Query, opts?: RunOptions, results?: QueryResultsOptions): Promise<Record<string, unknown>[]> {
    if (this.#closed) throw new Error('the BigQuery source is closed');
    const cancel = opts?.cancel;
    if (cancel?.cancelled === true) throw new JobCancelledError();
    const timeout = opts?.timeoutMs ?? (this.settings.statementTimeoutMs > 0 ? this.settings.statementTimeoutMs : null);
    const [job] = (await this.client.createQueryJob({ ...query, useLegacySql: false, ...(timeout === null ? {} : { jobTimeoutMs: timeout }) })) as [
      Job,
      unknown,
    ];
    let cancelled = false;
    cancel?.watch(() => {
      cancelled = true;
      // The job may already be done; a failed cancel changes nothing for the request.
      job.cancel().catch(() => undefined);
    });
    try {
      const [rows] = await job.getQueryResults(results ?? {});
      if (cancelled) throw new JobCancelledError();
      return rows as Record<string, unknown>[];
    } catch (e) {
      if (cancelled) throw new JobCancelledError();
      throw e;
    } finally {
      cancel?.unwatch();
    }
  }

  async queryJsonText(stmt: BoundStatement, opts?: RunOptions): Promise<string | null> {
    const { params, types } = namedParams(stmt, this.settings.globalSelectLimit);
    const rows = await this.run({ query: stmt.text, params, types }, opts);
    const first = rows[0];
    if (first === undefined) return null;
    const v = Object.values(first)[0];
    return v === null || v === undefined ? null : String(v);
  }

  async ping(): Promise<void> {
    await this.run({ query: 'SELECT 1 AS one' });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.resolve();
  }
}
