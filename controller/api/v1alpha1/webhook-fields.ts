/**
 * Schema pieces shared by the trigger and remote-schema kinds: header lists (value or
 * value_from_env) and retry configuration, as the metadata spec names them.
 */
import type { OpenApiSchema } from './structural.ts';

/** `HeaderFromValue` or `HeaderFromEnv`. */
export interface HeaderSpec {
  readonly name: string;
  readonly value?: string;
  readonly value_from_env?: string;
}

/** A list of headers; each has exactly one of value and value_from_env. */
export const headersSchema: OpenApiSchema = {
  type: 'array',
  maxItems: 64,
  items: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 256 },
      value: { type: 'string', maxLength: 8192 },
      value_from_env: { type: 'string', minLength: 1, maxLength: 256 },
    },
    'x-kubernetes-validations': [{ rule: 'has(self.value) != has(self.value_from_env)', message: 'a header has exactly one of value or value_from_env' }],
  },
};

/** `retry_conf` of a trigger (open: its inner structure is not shown by the spec beyond these keys). */
export const retryConfSchema: OpenApiSchema = {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
  properties: {
    num_retries: { type: 'integer', minimum: 0 },
    interval_sec: { type: 'integer', minimum: 0 },
    timeout_sec: { type: 'integer', minimum: 0 },
    retry_interval_seconds: { type: 'integer', minimum: 0 },
    tolerance_seconds: { type: 'integer', minimum: 0 },
  },
};

/** A request or response transformation (free-form: not shown by the spec). */
export const transformSchema: OpenApiSchema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
