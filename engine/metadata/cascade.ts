/**
 * Cascading a drop: removes dependents (objects the drop made inconsistent)
 * from the document and rebuilds, in rounds, until nothing new breaks.
 */
import { newInconsistencies } from '../catalog/dependencies.ts';
import { parseObjectId } from '../catalog/object-id.ts';
import type { Catalog, InconsistentObject } from '../catalog/types.ts';
import type { MetadataDocument } from '../model/document.ts';
import { removeObject } from './edit.ts';

/** A cascade chain longer than this would be a bug in dependency tracking. */
const MAX_ROUNDS = 10;

/** The document without `objects`. */
export function removeObjects(doc: MetadataDocument, objects: readonly InconsistentObject[]): MetadataDocument {
  let out = doc;
  for (const o of objects) {
    const ref = parseObjectId(o.id);
    if (ref !== null) out = removeObject(out, ref);
  }
  return out;
}

/**
 * Removes what became inconsistent relative to `before` and rebuilds with
 * `build` until the result has no new inconsistencies (or the rounds run out,
 * leaving them for the caller to report).
 */
export async function cascade<S extends { readonly doc: MetadataDocument; readonly catalog: Catalog }>(
  before: Catalog,
  start: S,
  build: (doc: MetadataDocument) => Promise<S>,
): Promise<S> {
  let state = start;
  let added = newInconsistencies(before, state.catalog);
  for (let round = 0; round < MAX_ROUNDS && added.length > 0; round++) {
    state = await build(removeObjects(state.doc, added));
    added = newInconsistencies(before, state.catalog);
  }
  return state;
}
