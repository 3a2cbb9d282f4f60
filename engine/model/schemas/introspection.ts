/**
 * JSON schema of v2's GraphQL introspection options: the args of
 * `set_graphql_schema_introspection_options` and the document's
 * `graphql_schema_introspection` (Note [Introspection disabled for roles] in
 * graphql/to-ir/operation.ts).
 */
import { nameSchema } from './common.ts';
import type { JsonSchema } from './validate.ts';

/** `{disabled_for_roles: [role]}`; v2 requires the list (empty enables introspection for every role). */
export const introspectionOptionsSchema: JsonSchema = {
  type: 'object',
  required: ['disabled_for_roles'],
  properties: { disabled_for_roles: { type: 'array', items: nameSchema } },
  additionalProperties: false,
};
