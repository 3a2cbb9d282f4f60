/**
 * The `Action` kind: one action (`actions[]` of the metadata document): a GraphQL root field served
 * by an HTTP handler, with the roles allowed to call it (its action permissions, which are parts of
 * the Action: see Note [Objects and parts] in reconcilers/objects.ts). The types its arguments and
 * output name come from CustomTypes resources (or the database's scalars).
 */
import type { JsonObject } from '../../../engine/model/document.ts';
import { STANDARD_PRINTER_COLUMNS, deletionPolicySchema, engineRefSchema, type CustomObject, type KindDefinition, type TargetFields } from './common.ts';
import { headersSchema, transformSchema, type HeaderSpec } from './webhook-fields.ts';

/** `Action.spec.definition`, as the metadata document stores it. */
export interface ActionDefinition {
  /** A URL, or a template such as `{{ACTION_BASE_URL}}/hello` read from the engine's environment. */
  readonly handler: string;
  readonly output_type: string;
  readonly kind?: 'synchronous' | 'asynchronous';
  readonly type?: 'query' | 'mutation';
  readonly arguments?: readonly { readonly name: string; readonly type: string; readonly description?: string }[];
  readonly headers?: readonly HeaderSpec[];
  readonly forward_client_headers?: boolean;
  readonly timeout?: number;
  readonly request_transform?: JsonObject;
  readonly response_transform?: JsonObject;
}

/** `Action.spec`. */
export interface ActionSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly name?: string;
  readonly definition: ActionDefinition;
  /** Roles that may call the action (action permissions). */
  readonly permissions?: readonly { readonly role: string; readonly comment?: string }[];
  readonly comment?: string;
}

/** An Action object. */
export type ActionResource = CustomObject<ActionSpec>;

/** A GraphQL type reference such as `[String!]!` (the engine parses it; this bounds it for CEL). */
const typeRefSchema = { type: 'string', minLength: 1, maxLength: 512 };

/** The CRD description of Action. */
export const actionKind: KindDefinition = {
  kind: 'Action',
  plural: 'actions',
  singular: 'action',
  shortNames: ['gact'],
  specSchema: {
    type: 'object',
    required: ['definition'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 253,
        description: 'Name of the action (its root field); defaults to metadata.name. Set it when metadata.name has a "-" or ".".',
      },
      definition: {
        type: 'object',
        required: ['handler', 'output_type'],
        properties: {
          handler: { type: 'string', minLength: 1, maxLength: 2048, description: 'URL of the handler, or a template: {{ENV_VAR}}/path.' },
          output_type: typeRefSchema,
          kind: { type: 'string', enum: ['synchronous', 'asynchronous'] },
          type: { type: 'string', enum: ['query', 'mutation'] },
          arguments: {
            type: 'array',
            maxItems: 256,
            items: {
              type: 'object',
              required: ['name', 'type'],
              properties: { name: { type: 'string', minLength: 1, maxLength: 256 }, type: typeRefSchema, description: { type: 'string', maxLength: 4096 } },
            },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
          },
          headers: headersSchema,
          forward_client_headers: { type: 'boolean' },
          timeout: { type: 'integer', minimum: 1, description: 'Seconds to wait for the handler (default 30).' },
          request_transform: transformSchema,
          response_transform: transformSchema,
        },
      },
      permissions: {
        type: 'array',
        maxItems: 1000,
        description: 'Roles that may call the action.',
        items: {
          type: 'object',
          required: ['role'],
          properties: { role: { type: 'string', minLength: 1, maxLength: 253 }, comment: { type: 'string', maxLength: 4096 } },
        },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['role'],
      },
      comment: { type: 'string', maxLength: 4096 },
    },
    'x-kubernetes-validations': [{ rule: "!has(self.permissions) || !self.permissions.exists(p, p.role == 'admin')", message: 'admin may call every action' }],
  },
  // The name defaults to metadata.name, which only a rule on the whole object can read.
  objectRules: [
    {
      rule: "(has(self.spec.name) ? self.spec.name : self.metadata.name).matches('^[_A-Za-z][_0-9A-Za-z]*$')",
      message: 'the action name (spec.name, else metadata.name) must be a GraphQL name: set spec.name when metadata.name has a "-" or "."',
    },
  ],
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.definition.type' },
    { name: 'Output', type: 'string', jsonPath: '.spec.definition.output_type' },
    ...STANDARD_PRINTER_COLUMNS,
  ],
};
