/**
 * JSON schemas of query collections, allow-list entries and REST endpoints:
 * the document's entries and the args of their operations share them.
 * GraphQL text is checked by the catalog stage (catalog/stages/query-collections.ts),
 * not here; a URL template's grammar too (catalog/url-template.ts).
 */
import { nameSchema, nullableString } from './common.ts';
import type { JsonSchema } from './validate.ts';

/** v2 compat: the methods an endpoint may serve, in upper case (case-sensitive). */
export const REST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `{name, query}` of a collection. */
export const collectionQuerySchema: JsonSchema = {
  type: 'object',
  required: ['name', 'query'],
  properties: { name: nameSchema, query: { type: 'string' } },
  additionalProperties: false,
};

/** A collection's `definition`. */
export const collectionDefinitionSchema: JsonSchema = {
  type: 'object',
  required: ['queries'],
  properties: { queries: { type: 'array', items: collectionQuerySchema } },
  additionalProperties: false,
};

/** An allow-list `scope`: `{global: true}` or `{global: false, roles: [...]}` (roles non-empty then). */
export const allowlistScopeSchema: JsonSchema = {
  type: 'object',
  required: ['global'],
  properties: { global: { type: 'boolean' }, roles: { type: 'array', items: nameSchema, uniqueItems: true } },
  additionalProperties: false,
  if: { properties: { global: { const: false } } },
  then: { required: ['global', 'roles'], properties: { roles: { minItems: 1 } } },
};

/** A REST endpoint's `definition`. */
export const endpointDefinitionSchema: JsonSchema = {
  type: 'object',
  required: ['query'],
  properties: {
    query: {
      type: 'object',
      required: ['collection_name', 'query_name'],
      properties: { collection_name: nameSchema, query_name: nameSchema },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** `methods`: non-empty, distinct, upper-case HTTP methods. */
export const endpointMethodsSchema: JsonSchema = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { enum: [...REST_METHODS] },
};

/** Typed values of the document's entries (the keys themselves are fixed by the document schema). */
export const collectionEntryTypes: Record<string, JsonSchema> = { name: nameSchema, definition: collectionDefinitionSchema, comment: nullableString };
export const allowlistEntryTypes: Record<string, JsonSchema> = { collection: nameSchema, scope: allowlistScopeSchema };
export const endpointEntryTypes: Record<string, JsonSchema> = {
  name: nameSchema,
  url: { type: 'string', minLength: 1 },
  methods: endpointMethodsSchema,
  definition: endpointDefinitionSchema,
  comment: nullableString,
};
