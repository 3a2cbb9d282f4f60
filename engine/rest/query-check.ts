/**
 * The QueryChecker of catalog/build.ts: validates stored queries (query
 * collections, hence REST endpoints) against the admin schema of the catalog
 * being built, so a query that stops validating (a column dropped, a table
 * untracked) makes its collection entry inconsistent (Note [Catalog stages]).
 *
 * Note [Checking stored queries]
 * The admin schema is built only when the build has a query to check, once
 * per build. It is not taken from the request path's SchemaCache with `get`:
 * a refused edit's build would move that cache to a catalog version that
 * never serves, and every request would then build its schema afresh. It
 * used to be built from scratch by its own builder, which cost every
 * metadata call a whole admin schema while collections held queries (at
 * 2,000 tables the ~1.2 s of the admin schema in every call). Now, given
 * the request path's cache, it is made by `SchemaCache.candidateAdmin`:
 * with the installed version's types of every table the call left alone
 * (Note [Types across catalog versions] in graphql/schema/schema-cache.ts),
 * and kept nowhere. Without one (before the GraphQL service exists) it is
 * built afresh as before.
 * graphql-js's specified rules are the check; the engine's size bounds
 * (Note [Operation cost]) are a per-role request matter and do not apply.
 */
import { validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Catalog, QueryChecker } from '../catalog/types.ts';
import { buildRoleSchema, type SchemaOptions } from '../graphql/schema/build-schema.ts';
import type { SchemaCache } from '../graphql/schema/schema-cache.ts';

/**
 * A QueryChecker over the admin schema built with `options` (the engine's
 * schema settings); `installed` gives the request path's SchemaCache once
 * there is one (Note [Checking stored queries]).
 */
export function adminQueryChecker(options: SchemaOptions, installed: () => SchemaCache | undefined = () => undefined): QueryChecker {
  return (catalog: Catalog) => {
    let schema: GraphQLSchema | string | undefined;
    return (document: DocumentNode) => {
      if (schema === undefined) {
        try {
          schema = installed()?.candidateAdmin(catalog) ?? buildRoleSchema(catalog, 'admin', true, options).schema;
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
