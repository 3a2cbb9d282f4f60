/**
 * The `Function` kind: one tracked SQL function (`sources[].functions[]` of the metadata document)
 * with its configuration and the roles allowed to call it (its function permissions, which are
 * parts of the Function: see Note [Objects and parts] in reconcilers/objects.ts).
 */
import type { FunctionConfiguration, TableNameInput } from '../../../engine/model/document.ts';
import { tableNameSchema } from '../../../engine/model/schemas/common.ts';
import { functionConfigurationSchema } from '../../../engine/model/schemas/functions.ts';
import { STANDARD_PRINTER_COLUMNS, deletionPolicySchema, engineRefSchema, type CustomObject, type KindDefinition, type TargetFields } from './common.ts';
import { toStructural } from './structural.ts';

/** `Function.spec`. */
export interface FunctionSpec extends TargetFields {
  /** Defaults to `default`. */
  readonly source?: string;
  readonly function: TableNameInput;
  readonly configuration?: FunctionConfiguration;
  /** Roles that may call the function (function permissions). */
  readonly permissions?: readonly { readonly role: string }[];
  readonly comment?: string;
}

/** A Function object. */
export type FunctionResource = CustomObject<FunctionSpec>;

/** The CRD description of Function. */
export const functionKind: KindDefinition = {
  kind: 'Function',
  plural: 'functions',
  singular: 'function',
  shortNames: ['gfn'],
  specSchema: {
    type: 'object',
    required: ['function'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      source: { type: 'string', minLength: 1, maxLength: 253, default: 'default' },
      function: toStructural(tableNameSchema),
      configuration: toStructural(functionConfigurationSchema),
      permissions: {
        type: 'array',
        maxItems: 1000,
        description: 'Roles that may call the function.',
        items: { type: 'object', required: ['role'], properties: { role: { type: 'string', minLength: 1, maxLength: 253 } } },
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['role'],
      },
      comment: { type: 'string', maxLength: 4096 },
    },
  },
  printerColumns: [{ name: 'Source', type: 'string', jsonPath: '.spec.source' }, ...STANDARD_PRINTER_COLUMNS],
};
