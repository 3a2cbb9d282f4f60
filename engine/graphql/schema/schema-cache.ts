/**
 * Role schemas memoized per (catalog version, role). A new catalog version
 * drops every schema of older versions at once. Roles with the same
 * fingerprint (role-fingerprint.ts) share one schema.
 */
import type { Catalog } from '../../catalog/types.ts';
import { buildRoleSchema, type RoleSchema, type SchemaOptions } from './build-schema.ts';
import { roleFingerprint } from './role-fingerprint.ts';

/** The memo of role schemas. */
export class SchemaCache {
  #version = -1;
  readonly #byRole = new Map<string, RoleSchema>();
  readonly #byFingerprint = new Map<string, RoleSchema>();
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
      this.#byFingerprint.clear();
      this.#version = catalog.version;
    }
    const key = isAdmin ? `\0admin` : role;
    let s = this.#byRole.get(key);
    if (s === undefined) {
      const fp = isAdmin ? null : roleFingerprint(catalog, role);
      s = fp === null ? undefined : this.#byFingerprint.get(fp);
      if (s === undefined) {
        s = buildRoleSchema(catalog, role, isAdmin, this.#options);
        if (fp !== null) this.#byFingerprint.set(fp, s);
      }
      this.#byRole.set(key, s);
    }
    return s;
  }

  /**
   * Builds the schemas of the admin and of every role of `catalog` ahead of
   * requests, one role per macrotask so requests interleave, stopping once a
   * newer catalog has been seen. Called when metadata changes, so the first
   * request of a role does not pay for its schema (and permission IR).
   */
  warm(catalog: Catalog): void {
    const roles: Array<readonly [string, boolean]> = [['admin', true], ...catalog.roles.map((r) => [r, false] as const)];
    const step = (i: number): void => {
      const next = roles[i];
      if (next === undefined || this.#version > catalog.version) return;
      this.get(catalog, next[0], next[1]);
      // Unref'd: warming never keeps a shutting-down process alive.
      setImmediate(() => step(i + 1)).unref();
    };
    setImmediate(() => step(0)).unref();
  }
}
