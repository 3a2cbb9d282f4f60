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
  return make({ ref, naming }, wireDefinition(naming, ref, definition), reason, code);
}

/**
 * v2 compat: a definition names its table or function as the source's backend
 * prints names (BigQuery `{dataset, name}`). Definitions are built from the
 * normalized document, so the name is the ref's: the definition itself (a
 * tracked table or function) or its `table`/`function` key.
 */
function wireDefinition(naming: TableNaming, ref: SourceObjectRef, definition: unknown): unknown {
  const named = 'table' in ref ? ref.table : 'function' in ref ? ref.function : undefined;
  if (named === undefined || typeof definition !== 'object' || definition === null || Array.isArray(definition)) return definition;
  const isNamed = (v: unknown): boolean => typeof v === 'object' && v !== null && sameName(v as Record<string, unknown>, named);
  if (isNamed(definition)) return naming.toWire(named);
  const d = definition as Record<string, unknown>;
  const key = 'table' in ref ? 'table' : 'function';
  return isNamed(d[key]) ? { ...d, [key]: naming.toWire(named) } : definition;
}

function sameName(v: Record<string, unknown>, t: { readonly schema: string; readonly name: string }): boolean {
  return Object.keys(v).length === 2 && v['schema'] === t.schema && v['name'] === t.name;
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
