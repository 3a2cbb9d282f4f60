/**
 * The `configuration` of a BigQuery source (v2's `BigQueryConnSourceConfig`):
 * `service_account` (an object, a JSON-encoded string, or `{from_env}` naming
 * a variable holding the JSON), `project_id`, `datasets` (a list, or
 * `{from_env}` holding a comma-separated one), `global_select_limit`
 * (default 1000), `retry_base_delay` and `retry_limit` (v2's defaults 500 ms
 * and 5); each scalar a string, a number or `{from_env}`.
 *
 * Note [BigQuery endpoint]
 * v2 has no endpoint setting: it always talks to Google. The standard
 * `BIGQUERY_EMULATOR_HOST` variable of Google's clients (read here through
 * ResolveOptions.env, so it is part of the pool key) points the source at an
 * emulator instead; requests then go unauthenticated, as the clients do for
 * emulators.
 */
import { createPrivateKey } from 'node:crypto';
import type { ConfigurationSupport, ResolveOptions, ResolvedConfiguration } from '../backend.ts';
import type { JsonSchema } from '../../model/schemas/validate.ts';

const fromEnvSchema: JsonSchema = { type: 'object', required: ['from_env'], properties: { from_env: { type: 'string' } }, additionalProperties: false };
const inputSchema: JsonSchema = { oneOf: [{ type: 'string' }, { type: 'number' }, fromEnvSchema] };

/** The schema of a BigQuery source's `configuration` (closed, as v2's). */
export const bigqueryConfigurationSchema: JsonSchema = {
  type: 'object',
  required: ['service_account', 'project_id', 'datasets'],
  properties: {
    service_account: {
      oneOf: [
        { type: 'string' },
        fromEnvSchema,
        {
          type: 'object',
          required: ['client_email', 'private_key', 'project_id'],
          properties: { client_email: { type: 'string' }, private_key: { type: 'string' }, project_id: { type: 'string' } },
          not: { required: ['from_env'] },
        },
      ],
    },
    project_id: inputSchema,
    datasets: { oneOf: [{ type: 'array', items: { type: 'string' } }, fromEnvSchema] },
    global_select_limit: { oneOf: [inputSchema, { type: 'null' }] },
    retry_base_delay: { oneOf: [inputSchema, { type: 'null' }] },
    retry_limit: { oneOf: [inputSchema, { type: 'null' }] },
  },
  additionalProperties: false,
};

type Input = string | number | { readonly from_env: string };

/** A configuration as its schema admits it. */
interface BigQueryConfiguration {
  readonly service_account:
    string | { readonly from_env: string } | { readonly client_email: string; readonly private_key: string; readonly project_id: string };
  readonly project_id: Input;
  readonly datasets: readonly string[] | { readonly from_env: string };
  readonly global_select_limit?: Input | null;
  readonly retry_base_delay?: Input | null;
  readonly retry_limit?: Input | null;
}

/** A service account's credentials. */
export interface ServiceAccount {
  readonly client_email: string;
  readonly private_key: string;
  readonly project_id: string;
}

/** A resolved BigQuery configuration: what {@link BigQueryConnection} is opened with. */
export class BigQuerySettings implements ResolvedConfiguration {
  readonly kind = 'bigquery';
  readonly key: string;
  readonly projectId: string;
  readonly datasets: readonly string[];
  readonly globalSelectLimit: number;
  readonly retryLimit: number;
  readonly retryBaseDelayMs: number;
  readonly credentials: ServiceAccount;
  /** An emulator's URL (Note [BigQuery endpoint]); null: Google's API. */
  readonly apiEndpoint: string | null;
  readonly statementTimeoutMs: number;

  constructor(v: Omit<BigQuerySettings, 'kind'>) {
    this.key = v.key;
    this.projectId = v.projectId;
    this.datasets = v.datasets;
    this.globalSelectLimit = v.globalSelectLimit;
    this.retryLimit = v.retryLimit;
    this.retryBaseDelayMs = v.retryBaseDelayMs;
    this.credentials = v.credentials;
    this.apiEndpoint = v.apiEndpoint;
    this.statementTimeoutMs = v.statementTimeoutMs;
  }
}

class Unresolved extends Error {}

function input(v: Input, env: ResolveOptions['env'], what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  const x = env(v.from_env);
  if (x === undefined) throw new Unresolved(`environment variable "${v.from_env}" is not set (${what})`);
  return x;
}

/** v2's `readNonNegative`. */
function nonNegative(v: Input | null | undefined, env: ResolveOptions['env'], what: string, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  const text = input(v, env, what).trim();
  if (!/^-?\d+$/.test(text)) throw new Unresolved(`Need a non-negative integer for ${what}`);
  const n = Number(text);
  if (n < 0) throw new Unresolved(`Need the integer for the ${what} to be non-negative`);
  return n;
}

function serviceAccount(sa: BigQueryConfiguration['service_account'], env: ResolveOptions['env']): ServiceAccount {
  let v: unknown = sa;
  if (typeof sa === 'object' && 'from_env' in sa) {
    const text = env(sa.from_env);
    if (text === undefined) throw new Unresolved(`environment variable "${sa.from_env}" is not set (service account)`);
    v = text;
  }
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      throw new Unresolved('error parsing configuration json');
    }
  }
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  for (const k of ['client_email', 'private_key', 'project_id']) if (typeof o[k] !== 'string') throw new Unresolved(`the service account has no "${k}"`);
  const account = o as unknown as ServiceAccount;
  try {
    createPrivateKey(account.private_key);
  } catch {
    throw new Unresolved('unable to parse private key');
  }
  return account;
}

/** The configuration of BigQuery sources. */
export const bigqueryConfiguration: ConfigurationSupport = {
  schema: bigqueryConfigurationSchema,
  resolve(configuration, options) {
    const c = configuration as BigQueryConfiguration;
    const endpoint = options.env('BIGQUERY_EMULATOR_HOST') ?? null;
    const keyOf = (extra: unknown): string => JSON.stringify({ c, endpoint, extra });
    try {
      const projectId = input(c.project_id, options.env, 'project id');
      const datasets = Array.isArray(c.datasets)
        ? [...(c.datasets as readonly string[])]
        : input(c.datasets as { from_env: string }, options.env, 'datasets')
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '');
      const credentials = serviceAccount(c.service_account, options.env);
      const limit = nonNegative(c.global_select_limit, options.env, 'global select limit', 1000);
      const retryLimit = nonNegative(c.retry_limit, options.env, 'retry limit', 5);
      const retryDelay = nonNegative(c.retry_base_delay, options.env, 'retry base delay', 500000);
      const host = endpoint === null || endpoint === '' ? null : endpoint.replace(/\/+$/, '').replace(/\/bigquery\/v2$/, '');
      const apiEndpoint = host === null ? null : host.includes('://') ? host : `http://${host}`;
      // Resolved values in the key: the same configuration with other variable values is another pool.
      const key = keyOf({ projectId, datasets, credentials: credentials.client_email, limit, retryLimit, retryDelay });
      return new BigQuerySettings({
        key,
        projectId,
        datasets,
        globalSelectLimit: limit,
        retryLimit,
        retryBaseDelayMs: Math.round(retryDelay / 1000),
        credentials,
        apiEndpoint,
        statementTimeoutMs: options.statementTimeoutMs,
      });
    } catch (e) {
      if (e instanceof Unresolved) return { key: keyOf(null), reason: e.message };
      throw e;
    }
  },
  // The metadata database is always PostgreSQL.
  isDatabase: () => false,
};
