/**
 * The `RestEndpoint` kind: a URL template served from a query of a query collection
 * (`rest_endpoints[]` of the metadata document). Its collection is a reference: while the
 * collection is not in the engine's metadata the endpoint waits (DependencyMissing); a query name
 * the collection does not have is the engine's inconsistency, shown on this resource.
 */
import { endpointDefinitionSchema, endpointMethodsSchema } from '../../../engine/model/schemas/query-collections.ts';
import {
  STANDARD_PRINTER_COLUMNS,
  deletionPolicySchema,
  engineRefSchema,
  optionalNameSchema,
  type CustomObject,
  type KindDefinition,
  type TargetFields,
} from './common.ts';
import { boundStrings, toStructural } from './structural.ts';

/** `RestEndpoint.spec`. */
export interface RestEndpointSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly name?: string;
  /** The URL template below /api/rest/, e.g. `articles/:id`. */
  readonly url: string;
  readonly methods: readonly string[];
  readonly definition: { readonly query: { readonly collection_name: string; readonly query_name: string } };
  readonly comment?: string;
}

/** A RestEndpoint object. */
export type RestEndpointResource = CustomObject<RestEndpointSpec>;

/** The CRD description of RestEndpoint. */
export const restEndpointKind: KindDefinition = {
  kind: 'RestEndpoint',
  plural: 'restendpoints',
  singular: 'restendpoint',
  shortNames: ['grest'],
  specSchema: {
    type: 'object',
    required: ['url', 'methods', 'definition'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      name: optionalNameSchema,
      url: { type: 'string', minLength: 1, maxLength: 2048, description: 'The URL template below /api/rest/ (e.g. articles/:id).' },
      methods: { ...toStructural(endpointMethodsSchema), 'x-kubernetes-list-type': 'set' },
      definition: boundStrings(toStructural(endpointDefinitionSchema), 253),
      comment: { type: 'string', maxLength: 4096 },
    },
  },
  printerColumns: [
    { name: 'URL', type: 'string', jsonPath: '.spec.url' },
    { name: 'Collection', type: 'string', jsonPath: '.spec.definition.query.collection_name' },
    ...STANDARD_PRINTER_COLUMNS,
  ],
};
