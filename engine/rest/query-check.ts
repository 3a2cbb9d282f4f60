/**
 * The QueryChecker of catalog/build.ts: validates stored queries (query
 * collections, hence REST endpoints) against the admin schema of the catalog
 * being built, so a query that stops validating (a column dropped, a table
 * untracked) makes its collection entry inconsistent (Note [Catalog stages]).
 *
 * Note [Checking stored queries]
 * The admin schema is built only when the build has a query to check, once
 * per build, with its own builder (not the request path's SchemaCache: a
 * refused edit's build would move that cache to a catalog version that never
 * serves, and every request would then build its schema afresh). The cost is
 * one admin schema build per metadata call while collections hold queries.
 * graphql-js's specified rules are the check; the engine's size bounds
 * (Note [Operation cost]) are a per-role request matter and do not apply.
 */
import { validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Catalog, QueryChecker } from '../catalog/types.ts';
import { buildRoleSchema, type SchemaOptions } from '../graphql/schema/build-schema.ts';

/** A QueryChecker over the admin schema built with `options` (the engine's schema settings). */
export function adminQueryChecker(options: SchemaOptions): QueryChecker {
  return (catalog: Catalog) => {
    let schema: GraphQLSchema | string | undefined;
    return (document: DocumentNode) => {
      if (schema === undefined) {
        try {
          schema = buildRoleSchema(catalog, 'admin', true, options).schema;
        } catch (e) {
          schema = `the admin schema could not be built: ${e instanceof Error ? e.message : String(e)}`;
        }
      }
      if (typeof schema === 'string') return schema;
      const errors = validate(schema, document);
      const first = errors[0];
      return first === undefined ? null : `not valid against the GraphQL schema: ${first.message}`;
    };
  };
}
