/**
 * Dependencies between metadata objects, read off two catalogs. An object
 * depends on another when removing or breaking the other makes it
 * inconsistent (a relationship on its target table, a permission on the
 * relationships its filter goes through). The build order of build.ts already
 * prunes dependents; here the difference of two builds names them.
 */
import type { Catalog, InconsistentObject } from './types.ts';

/** The objects inconsistent in `after` but not in `before`, keyed by object id. */
export function newInconsistencies(before: Catalog, after: Catalog): InconsistentObject[] {
  const old = new Set(before.inconsistencies.map((o) => o.id));
  return after.inconsistencies.filter((o) => !old.has(o.id));
}

/** v2 compat: the message of a `dependency-error`. */
export function dependentsMessage(dependents: readonly InconsistentObject[]): string {
  return `cannot drop due to the following dependent objects: ${dependents.map((o) => o.name ?? o.type).join(', ')}; add "cascade": true to the args to drop them too`;
}
