/**
 * v2 compat: the wire form of inconsistent objects (the internal `id` left out).
 */
import type { InconsistentObject } from '../../../catalog/types.ts';

/** `{type, name, definition, reason}` of each object. */
export function wireInconsistencies(list: readonly InconsistentObject[]): Array<Record<string, unknown>> {
  return list.map((o) => ({
    definition: o.definition,
    ...(o.name === undefined ? {} : { name: o.name }),
    reason: o.reason,
    type: o.type,
  }));
}
