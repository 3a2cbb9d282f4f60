/**
 * The `QueryCollection` kind: a named list of GraphQL queries (`query_collections[]` of the metadata
 * document), optionally in the allow-list (`allowlist[]`).
 *
 * Note [The allow-list is a field of QueryCollection]
 * v2's document has `allowlist[]` entries `{collection, scope}`, at most one per collection (a
 * second one is inconsistent), and an entry whose collection is missing is inconsistent too. A
 * separate AllowListEntry kind would therefore be a 1:1 reference that can dangle, be duplicated,
 * and be deleted in the wrong order by Argo CD or Flux. As `spec.allowlist` (the entry without its
 * `collection`, which is the resource's own name), it cannot: it comes and goes with the
 * collection, two entries for one collection cannot be written, and whoever owns the queries
 * decides who may run them. In the document the entry stays a separate object
 * (`allowlist/<collection>`, a part of the collection: Note [Objects and parts]), so adopting a
 * collection someone allow-listed by hand leaves that entry alone unless the spec says otherwise.
 */
import type { AllowlistScope, CollectionQuery } from '../../../engine/model/document.ts';
import { allowlistScopeSchema, collectionQuerySchema } from '../../../engine/model/schemas/query-collections.ts';
import {
  STANDARD_PRINTER_COLUMNS,
  deletionPolicySchema,
  engineRefSchema,
  optionalNameSchema,
  type CustomObject,
  type KindDefinition,
  type TargetFields,
} from './common.ts';
import { boundStrings, toStructural, type OpenApiSchema } from './structural.ts';

/** `QueryCollection.spec`. */
export interface QueryCollectionSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly name?: string;
  readonly queries: readonly CollectionQuery[];
  readonly comment?: string;
  /** Present: the collection is in the allow-list; `scope` defaults to `{global: true}`. */
  readonly allowlist?: { readonly scope?: AllowlistScope };
}

/** A QueryCollection object. */
export type QueryCollectionResource = CustomObject<QueryCollectionSpec>;

function scopeSchema(): OpenApiSchema {
  const s = toStructural(allowlistScopeSchema);
  return {
    ...s,
    description: 'Who may run the queries when the allow-list is on: everyone (global: true) or the listed roles.',
    'x-kubernetes-validations': [{ rule: 'self.global || (has(self.roles) && size(self.roles) > 0)', message: 'a scope that is not global lists roles' }],
  };
}

/** The CRD description of QueryCollection. */
export const queryCollectionKind: KindDefinition = {
  kind: 'QueryCollection',
  plural: 'querycollections',
  singular: 'querycollection',
  shortNames: ['gqc'],
  specSchema: {
    type: 'object',
    required: ['queries'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      name: optionalNameSchema,
      queries: {
        type: 'array',
        maxItems: 10_000,
        items: boundStrings(toStructural(collectionQuerySchema), 1_000_000),
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        description: 'The queries of the collection: {name, query} with the GraphQL text.',
      },
      comment: { type: 'string', maxLength: 4096 },
      allowlist: {
        type: 'object',
        description: 'Put the collection in the allow-list (its queries may run for non-admin roles when the engine has --enable-allowlist).',
        properties: { scope: scopeSchema() },
      },
    },
  },
  printerColumns: [{ name: 'Allowlist', type: 'string', jsonPath: '.spec.allowlist.scope.global' }, ...STANDARD_PRINTER_COLUMNS],
};
