/**
 * JSON schema of v2's `api_limits` (the args of `set_api_limits` and the
 * document key). v2 compat: `global` is required in every limit, `per_role`
 * optional; `unique_params` is `"IP"` (any case) or a list of session
 * variables other than the role.
 */
import type { JsonSchema } from './validate.ts';

function limitOf(value: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['global'],
    properties: { global: value, per_role: { type: 'object', additionalProperties: value } },
    additionalProperties: false,
  };
}

const count: JsonSchema = { type: 'integer', minimum: 0 };

const rateLimitConfig: JsonSchema = {
  type: 'object',
  required: ['max_reqs_per_min'],
  properties: {
    max_reqs_per_min: count,
    unique_params: {
      oneOf: [
        { type: 'null' },
        { type: 'string', pattern: '^[Ii][Pp]$' },
        {
          type: 'array',
          items: { type: 'string', pattern: '^[Xx]-[Ee][Nn][Gg][Ii][Nn][Ee]-', not: { pattern: '^[Xx]-[Ee][Nn][Gg][Ii][Nn][Ee]-[Rr][Oo][Ll][Ee]$' } },
        },
      ],
    },
  },
  additionalProperties: false,
};

/** `api_limits`. */
export const apiLimitsSchema: JsonSchema = {
  type: 'object',
  properties: {
    disabled: { type: 'boolean' },
    depth_limit: limitOf(count),
    node_limit: limitOf(count),
    // v2: seconds, fractions allowed.
    time_limit: limitOf({ type: 'number', exclusiveMinimum: 0 }),
    batch_limit: limitOf(count),
    rate_limit: limitOf(rateLimitConfig),
  },
  additionalProperties: false,
};
