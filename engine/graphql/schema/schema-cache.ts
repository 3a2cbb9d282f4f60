/**
 * Role schemas memoized per (catalog version, role). A new catalog version
 * drops every schema of older versions at once.
 */
import type { Catalog } from '../../catalog/types.ts';
import { buildRoleSchema, type RoleSchema, type SchemaOptions } from './build-schema.ts';

/** The memo of role schemas. */
export class SchemaCache {
  #version = -1;
  readonly #byRole = new Map<string, RoleSchema>();
  readonly #options: SchemaOptions;

  constructor(options: SchemaOptions = {}) {
    this.#options = options;
  }

  /** The schema of `role` in `catalog`, built on first use. */
  get(catalog: Catalog, role: string, isAdmin: boolean): RoleSchema {
    if (catalog.version !== this.#version) {
      // Requests still holding an older snapshot get a fresh, uncached build.
      if (catalog.version < this.#version) return buildRoleSchema(catalog, role, isAdmin, this.#options);
      this.#byRole.clear();
      this.#version = catalog.version;
    }
    const key = isAdmin ? `\0admin` : role;
    let s = this.#byRole.get(key);
    if (s === undefined) {
      s = buildRoleSchema(catalog, role, isAdmin, this.#options);
      this.#byRole.set(key, s);
    }
    return s;
  }
}
