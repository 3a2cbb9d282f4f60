/**
 * Catalog versions. Caches key on `Catalog.version` (role schemas, plans)
 * and treat a lower one as an older snapshot, so the catalogs one process
 * installs must be numbered strictly increasing, including rebuilds that keep
 * the store's resource_version (`reload_metadata`, re-introspection after a
 * failed request). The counter is owned by whoever builds catalogs for one
 * snapshot holder (the metadata service) and the number is passed to
 * buildCatalog, which keeps the build a function of its arguments.
 */

/** A strictly increasing numbering of catalogs, owned by one metadata service. */
export class CatalogVersions {
  #last = 0;

  /** The next catalog version (1, 2, ...). */
  next(): number {
    this.#last += 1;
    return this.#last;
  }
}

/** The versions a built catalog carries. */
export interface CatalogStamp {
  /** From {@link CatalogVersions.next}: identifies the snapshot in caches. */
  readonly version: number;
  /** The stored metadata's resource_version the catalog is built from (or will be stored as). */
  readonly resourceVersion: number;
}
