/**
 * Cron triggers and one-off events as the scheduler uses them: v2's wire
 * shapes (model/schemas/scheduled.ts) with v2's defaults applied.
 */
import type { JsonObject } from '../../model/document.ts';
import { compileRequestTransform, compileResponseTransform, type CompiledRequestTransform, type CompiledResponseTransform } from '../../transforms/index.ts';

/** `{name, value}` or `{name, value_from_env}`. */
export interface HeaderConf {
  readonly name: string;
  readonly value?: string;
  readonly value_from_env?: string;
}

/** v2 `RetryConfST` with its defaults filled in. */
export interface RetryConf {
  readonly numRetries: number;
  readonly retryIntervalSeconds: number;
  readonly timeoutSeconds: number;
  readonly toleranceSeconds: number;
}

/** v2's defaults: no retry, 10 s between tries, 60 s timeout, 6 h tolerance. */
export const DEFAULT_RETRY_CONF: RetryConf = { numRetries: 0, retryIntervalSeconds: 10, timeoutSeconds: 60, toleranceSeconds: 21_600 };

/** `retry_conf` as written → with defaults. */
export function retryConfOf(raw: unknown): RetryConf {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const num = (k: string, d: number): number => (typeof r[k] === 'number' ? r[k] : d);
  return {
    numRetries: num('num_retries', DEFAULT_RETRY_CONF.numRetries),
    retryIntervalSeconds: num('retry_interval_seconds', DEFAULT_RETRY_CONF.retryIntervalSeconds),
    timeoutSeconds: num('timeout_seconds', DEFAULT_RETRY_CONF.timeoutSeconds),
    toleranceSeconds: num('tolerance_seconds', DEFAULT_RETRY_CONF.toleranceSeconds),
  };
}

/** What one delivery needs, whichever kind of event it is. */
export interface WebhookDefinition {
  /** URL or `{{ENV}}` template. */
  readonly webhook: string;
  readonly headers: readonly HeaderConf[];
  readonly payload: unknown;
  readonly comment: string | null;
  readonly retryConf: RetryConf;
  readonly requestTransform: CompiledRequestTransform | null;
  readonly responseTransform: CompiledResponseTransform | null;
}

/** Compiles `request_transform` / `response_transform` (null when absent); throws a 400 at `path`. */
export function compileTransforms(
  request: unknown,
  response: unknown,
  path: string,
): { requestTransform: CompiledRequestTransform | null; responseTransform: CompiledResponseTransform | null } {
  return {
    requestTransform: request === undefined || request === null ? null : compileRequestTransform(request, `${path}.request_transform`),
    responseTransform: response === undefined || response === null ? null : compileResponseTransform(response, `${path}.response_transform`),
  };
}

/** A resolved cron trigger (catalog stage cron-triggers). */
export interface CronTrigger extends WebhookDefinition {
  readonly name: string;
  /** Normalized five-field expression. */
  readonly schedule: string;
  readonly includeInMetadata: boolean;
  /** The entry as stored, for get_cron_triggers and inconsistency reports. */
  readonly raw: JsonObject;
}

/** A one-off event's stored definition (`definition` column). */
export interface OneOffDefinition {
  readonly webhook: string;
  readonly headers: readonly HeaderConf[];
  readonly payload: unknown;
  readonly comment: string | null;
  readonly retry_conf: unknown;
  readonly request_transform: JsonObject | null;
  readonly response_transform: JsonObject | null;
}

/** A one-off event's stored definition → what one delivery needs (its transforms were checked when it was created). */
export function oneOffWebhook(d: OneOffDefinition): WebhookDefinition {
  return {
    webhook: d.webhook,
    headers: d.headers,
    payload: d.payload ?? null,
    comment: d.comment,
    retryConf: retryConfOf(d.retry_conf),
    ...compileTransforms(d.request_transform, d.response_transform, '$'),
  };
}

/** The headers' values, or the names of missing environment variables. */
export function resolveHeaders(
  headers: readonly HeaderConf[],
  env: (name: string) => string | undefined,
): { readonly ok: true; readonly headers: Record<string, string> } | { readonly ok: false; readonly missing: readonly string[] } {
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const h of headers) {
    const v = h.value ?? (h.value_from_env === undefined ? undefined : env(h.value_from_env));
    if (v === undefined) missing.push(h.value_from_env ?? h.name);
    else out[h.name.toLowerCase()] = v;
  }
  return missing.length > 0 ? { ok: false, missing } : { ok: true, headers: out };
}
