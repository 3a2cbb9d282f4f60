/**
 * Arg schemas and shared helpers of the function operations
 * (`pg_track_function`, `pg_untrack_function`, `pg_set_function_customization`,
 * `pg_create_function_permission`, `pg_drop_function_permission`).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { QualifiedName } from '../../../catalog/types.ts';
import { requireSource } from '../../define.ts';
import type { FunctionMetadata } from '../../../model/document.ts';
import { findFunction } from '../../edit.ts';
import { argPath, type MetadataCall, type OnSource, type RunContext } from '../../operation.ts';
import { nameSchema, nullableString, tableNameSchema } from '../../../model/schemas/common.ts';
import { functionConfigurationSchema } from '../../../model/schemas/functions.ts';
import type { JsonSchema } from '../../../model/schemas/validate.ts';

function args(required: readonly string[], properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', required: [...required], properties, additionalProperties: false };
}

/** `pg_track_function`. */
export const trackFunctionArgs = args(['function'], {
  function: tableNameSchema,
  source: nameSchema,
  configuration: functionConfigurationSchema,
  comment: nullableString,
});

/** `pg_untrack_function`. */
export const untrackFunctionArgs = args(['function'], { function: tableNameSchema, source: nameSchema });

/** `pg_set_function_customization`. */
export const setFunctionCustomizationArgs = args(['function'], {
  function: tableNameSchema,
  source: nameSchema,
  configuration: functionConfigurationSchema,
});

/** `pg_create_function_permission` and `pg_drop_function_permission`. */
export const functionPermissionArgs = args(['function', 'role'], {
  function: tableNameSchema,
  role: nameSchema,
  source: nameSchema,
});

/**
 * v2 compat: legacy `track_function` version 1 and `untrack_function` take the
 * function itself as args (`{schema, name}`); version 2 takes `{function, configuration}`.
 */
export function legacyFunctionArgs(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const r = raw as Record<string, unknown>;
  if (r['function'] !== undefined || r['name'] === undefined) return raw;
  const { schema, name, ...rest } = r;
  return { ...rest, function: schema === undefined ? { name } : { schema, name } };
}

/** The tracked function; `not-exists` when it is not tracked. */
export function requireTrackedFunction(ctx: RunContext, source: string, fn: QualifiedName, call: MetadataCall, on: OnSource): FunctionMetadata {
  requireSource(ctx, source, call);
  const f = findFunction(ctx.state.doc, source, fn);
  if (f === undefined) {
    throw new EngineError(ErrorCode.NotExists, `function not found in metadata : "${on.naming.format(fn)}"`, {
      path: argPath(call, 'function'),
    });
  }
  return f;
}
