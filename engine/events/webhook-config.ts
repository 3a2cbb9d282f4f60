/**
 * Resolving a webhook's URL and headers from metadata: inline values, or
 * environment variables read when metadata is built (v2 compat: a missing
 * variable makes the object inconsistent). Shared by event and scheduled
 * triggers.
 */
import { resolveEnv } from '../cli/env.ts';
import type { HeaderConf } from './definition.ts';

/** A resolved value, or why it cannot be resolved. */
export type Resolved<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** `webhook` or `webhook_from_env` (exactly one is set) → the URL. */
export function resolveWebhookUrl(webhook: string | undefined, fromEnv: string | undefined): Resolved<string> {
  if (webhook !== undefined) return { ok: true, value: webhook };
  if (fromEnv === undefined) return { ok: false, reason: 'no webhook' };
  const v = resolveEnv(fromEnv);
  if (v === undefined || v === '') return { ok: false, reason: `environment variable "${fromEnv}" is not set` };
  return { ok: true, value: v };
}

/** Headers → `[name, value]` pairs, `value_from_env` read now. */
export function resolveHeaders(headers: readonly HeaderConf[] | undefined): Resolved<ReadonlyArray<readonly [string, string]>> {
  const out: Array<readonly [string, string]> = [];
  for (const h of headers ?? []) {
    if ('value' in h) {
      out.push([h.name, h.value]);
      continue;
    }
    const v = resolveEnv(h.value_from_env);
    if (v === undefined) return { ok: false, reason: `environment variable "${h.value_from_env}" of header "${h.name}" is not set` };
    out.push([h.name, v]);
  }
  return { ok: true, value: out };
}
