/**
 * JSON schema of v2's network options: the document's `network` (`tls_allowlist`) and the
 * args of `add_host_to_tls_allowlist` / `drop_host_from_tls_allowlist` (Note [TLS allow-list]
 * in tls-allowlist.ts).
 */
import type { JsonSchema } from './validate.ts';

/** One allow-list entry: `{host, suffix?, permissions?}`; v2 knows one permission, `self-signed`. */
export const tlsAllowEntrySchema: JsonSchema = {
  type: 'object',
  required: ['host'],
  properties: {
    host: { type: 'string' },
    suffix: { type: 'string' },
    permissions: { type: 'array', items: { enum: ['self-signed'] } },
  },
  additionalProperties: false,
};

/** `add_host_to_tls_allowlist`: an entry, or just the host (v2 takes both). */
export const addHostArgsSchema: JsonSchema = { anyOf: [{ type: 'string' }, tlsAllowEntrySchema] };

/** `drop_host_from_tls_allowlist`: the host, and the suffix when the entry has one. */
export const dropHostArgsSchema: JsonSchema = {
  type: 'object',
  required: ['host'],
  properties: { host: { type: 'string' }, suffix: { type: 'string' } },
  additionalProperties: false,
};

/** The document's `network`. */
export const networkSchema: JsonSchema = {
  type: 'object',
  properties: { tls_allowlist: { type: 'array', items: tlsAllowEntrySchema } },
  additionalProperties: false,
};
