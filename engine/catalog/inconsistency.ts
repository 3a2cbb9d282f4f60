/**
 * Building {@link InconsistentObject}s: v2 compat shapes of
 * `get_inconsistent_metadata` (type, definition, reason, name).
 */
import type { ErrorCode } from '../errors/codes.ts';
import type { InconsistentObject } from './types.ts';
import type { TableNaming } from '../backends/backend.ts';
import { objectId, objectName, objectType, type MetadataObjectRef, type NamedObject, type SourceObjectRef } from './object-id.ts';

/** v2 compat: every reason starts with this. */
const PREFIX = 'Inconsistent object: ';

/** An inconsistency of `ref` (an object that names no table or function), whose stored form is `definition`. */
export function inconsistency(ref: Exclude<MetadataObjectRef, SourceObjectRef>, definition: unknown, reason: string, code?: ErrorCode): InconsistentObject {
  return make({ ref }, definition, reason, code);
}

/**
 * An inconsistency of `ref`, an object on a table or function of a source
 * whose backend names tables with `naming` (its `name` prints the table so).
 */
export function sourceInconsistency(naming: TableNaming, ref: SourceObjectRef, definition: unknown, reason: string, code?: ErrorCode): InconsistentObject {
  return make({ ref, naming }, definition, reason, code);
}

function make(object: NamedObject, definition: unknown, reason: string, code: ErrorCode | undefined): InconsistentObject {
  return {
    type: objectType(object.ref),
    name: objectName(object),
    definition,
    reason: reason.startsWith(PREFIX) ? reason : PREFIX + reason,
    ...(code === undefined ? {} : { code }),
    id: objectId(object.ref),
  };
}

/** An inconsistency list keyed by id. */
export function byId(list: readonly InconsistentObject[]): Map<string, InconsistentObject> {
  return new Map(list.map((o) => [o.id, o]));
}
