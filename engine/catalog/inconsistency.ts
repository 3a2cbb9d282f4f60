/**
 * Building {@link InconsistentObject}s: v2 compat shapes of
 * `get_inconsistent_metadata` (type, definition, reason, name).
 */
import type { ErrorCode } from '../errors/codes.ts';
import type { InconsistentObject } from './types.ts';
import { objectId, objectName, objectType, type MetadataObjectRef } from './object-id.ts';

/** v2 compat: every reason starts with this. */
const PREFIX = 'Inconsistent object: ';

/** An inconsistency of `ref`, whose stored form is `definition`. */
export function inconsistency(ref: MetadataObjectRef, definition: unknown, reason: string, code?: ErrorCode): InconsistentObject {
  return {
    type: objectType(ref),
    name: objectName(ref),
    definition,
    reason: reason.startsWith(PREFIX) ? reason : PREFIX + reason,
    ...(code === undefined ? {} : { code }),
    id: objectId(ref),
  };
}

/** An inconsistency list keyed by id. */
export function byId(list: readonly InconsistentObject[]): Map<string, InconsistentObject> {
  return new Map(list.map((o) => [o.id, o]));
}
