/**
 * The `RemoteSchema` kind: a remote GraphQL server stitched into the engine's schema
 * (`remote_schemas[]` of the metadata document).
 */
import type { JsonObject } from '../../../engine/model/document.ts';
import {
  STANDARD_PRINTER_COLUMNS,
  deletionPolicySchema,
  engineRefSchema,
  optionalNameSchema,
  type CustomObject,
  type KindDefinition,
  type TargetFields,
} from './common.ts';
import { headersSchema, type HeaderSpec } from './webhook-fields.ts';

/** `RemoteSchema.spec.definition`. */
export interface RemoteSchemaDefinition {
  readonly url?: string;
  readonly url_from_env?: string;
  readonly headers?: readonly HeaderSpec[];
  readonly forward_client_headers?: boolean;
  readonly timeout_seconds?: number;
  readonly customization?: JsonObject;
}

/** `RemoteSchema.spec`. */
export interface RemoteSchemaSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly name?: string;
  readonly definition: RemoteSchemaDefinition;
  readonly comment?: string;
}

/** A RemoteSchema object. */
export type RemoteSchema = CustomObject<RemoteSchemaSpec>;

/** The CRD description of RemoteSchema. */
export const remoteSchemaKind: KindDefinition = {
  kind: 'RemoteSchema',
  plural: 'remoteschemas',
  singular: 'remoteschema',
  shortNames: ['grs'],
  specSchema: {
    type: 'object',
    required: ['definition'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      name: optionalNameSchema,
      definition: {
        type: 'object',
        properties: {
          url: { type: 'string', maxLength: 2048 },
          url_from_env: { type: 'string', minLength: 1, maxLength: 256 },
          headers: headersSchema,
          forward_client_headers: { type: 'boolean' },
          timeout_seconds: { type: 'integer', minimum: 1 },
          customization: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: {
              root_fields_namespace: { type: 'string', maxLength: 256 },
              type_names: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              field_names: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        },
        'x-kubernetes-validations': [{ rule: 'has(self.url) != has(self.url_from_env)', message: 'exactly one of url or url_from_env is required' }],
      },
      comment: { type: 'string', maxLength: 4096 },
    },
  },
  printerColumns: [{ name: 'URL', type: 'string', jsonPath: '.spec.definition.url' }, ...STANDARD_PRINTER_COLUMNS],
};
