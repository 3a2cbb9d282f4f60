/**
 * The `CustomTypes` kind: GraphQL types that actions use (`custom_types` of the metadata document).
 *
 * Note [CustomTypes is a mergeable set]
 * The document has one `custom_types` object, and the engine checks it as one (Note [Custom types
 * as one object] in engine/actions/resolve.ts). The operator could have made CustomTypes one per
 * Engine, but then every team that adds an action must edit the same resource, which is what
 * GitOps users asked to avoid (hasura#7155, operator-notes.md §5.2). So any number of CustomTypes
 * resources target an Engine, and each declares its types one by one: every type is its own object
 * (`custom_type/<name>`, Note [Object keys]), so the fold merges them into the one document object
 * and a resource owns exactly the types it lists. Type names are one namespace across scalars,
 * enums, input objects and objects (as in GraphQL), so two resources defining the same name is a
 * Conflict on the newer resource (the older one keeps the type), reported in its status, never a
 * silent overwrite. Because the engine reports an inconsistency of the set as one object, every
 * CustomTypes resource of that engine shows it (its message names the bad type).
 */
import type { JsonObject } from '../../../engine/model/document.ts';
import { STANDARD_PRINTER_COLUMNS, deletionPolicySchema, engineRefSchema, type CustomObject, type KindDefinition, type TargetFields } from './common.ts';
import type { OpenApiSchema } from './structural.ts';

/** The four lists of `custom_types`, in the order v2 exports them. */
export const CUSTOM_TYPE_SECTIONS = ['input_objects', 'objects', 'scalars', 'enums'] as const;
/** One of {@link CUSTOM_TYPE_SECTIONS}. */
export type CustomTypeSection = (typeof CUSTOM_TYPE_SECTIONS)[number];

/** `CustomTypes.spec`: the `custom_types` shape of the document, any subset of the types. */
export interface CustomTypesSpec extends TargetFields {
  readonly input_objects?: readonly JsonObject[];
  readonly objects?: readonly JsonObject[];
  readonly scalars?: readonly JsonObject[];
  readonly enums?: readonly JsonObject[];
}

/** A CustomTypes object. */
export type CustomTypesResource = CustomObject<CustomTypesSpec>;

const name: OpenApiSchema = { type: 'string', minLength: 1, maxLength: 256, pattern: '^[_A-Za-z][_0-9A-Za-z]*$' };
const description: OpenApiSchema = { type: 'string', maxLength: 4096 };
const field: OpenApiSchema = {
  type: 'object',
  required: ['name', 'type'],
  properties: { name, type: { type: 'string', minLength: 1, maxLength: 512 }, description },
};
const fields: OpenApiSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: field,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
};

function typeList(item: OpenApiSchema): OpenApiSchema {
  return { type: 'array', maxItems: 1000, items: item, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] };
}

/** The CRD description of CustomTypes. */
export const customTypesKind: KindDefinition = {
  kind: 'CustomTypes',
  plural: 'customtypes',
  singular: 'customtypes',
  shortNames: ['gtypes'],
  specSchema: {
    type: 'object',
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      scalars: typeList({ type: 'object', required: ['name'], properties: { name, description } }),
      enums: typeList({
        type: 'object',
        required: ['name', 'values'],
        properties: {
          name,
          description,
          values: {
            type: 'array',
            minItems: 1,
            maxItems: 1000,
            items: {
              type: 'object',
              required: ['value'],
              properties: { value: { type: 'string', minLength: 1, maxLength: 256 }, description, is_deprecated: { type: 'boolean' } },
            },
          },
        },
      }),
      input_objects: typeList({ type: 'object', required: ['name', 'fields'], properties: { name, description, fields } }),
      objects: typeList({
        type: 'object',
        required: ['name', 'fields'],
        properties: {
          name,
          description,
          fields,
          relationships: {
            type: 'array',
            maxItems: 100,
            items: {
              type: 'object',
              required: ['name', 'type', 'remote_table', 'field_mapping'],
              properties: {
                name,
                type: { type: 'string', enum: ['object', 'array'] },
                source: { type: 'string', minLength: 1, maxLength: 253 },
                remote_table: { 'x-kubernetes-preserve-unknown-fields': true, description: 'A table name: a string or {schema, name}.' },
                field_mapping: { type: 'object', additionalProperties: { type: 'string', maxLength: 256 } },
              },
            },
          },
        },
      }),
    },
    'x-kubernetes-validations': [
      {
        rule: '(has(self.scalars) ? size(self.scalars) : 0) + (has(self.enums) ? size(self.enums) : 0) + (has(self.input_objects) ? size(self.input_objects) : 0) + (has(self.objects) ? size(self.objects) : 0) > 0',
        message: 'declare at least one type',
      },
    ],
  },
  printerColumns: [{ name: 'Objects', type: 'string', jsonPath: '.spec.objects[*].name', priority: 1 }, ...STANDARD_PRINTER_COLUMNS],
};
