/**
 * The `TrackedTable` kind: one tracked table or view with its configuration (custom names, root
 * fields), enum flag and relationships — a table entry of the metadata document without its
 * permissions and event triggers, which are resources of their own.
 */
import { tableEntrySchema } from '../../../engine/model/schemas/document.ts';
import type { JsonObject, RelationshipMetadata, TableConfiguration, TableNameInput } from '../../../engine/model/document.ts';
import { STANDARD_PRINTER_COLUMNS, deletionPolicySchema, engineRefSchema, type CustomObject, type KindDefinition, type TargetFields } from './common.ts';
import { toStructural, type OpenApiSchema } from './structural.ts';

/** `TrackedTable.spec`. */
export interface TrackedTableSpec extends TargetFields {
  /** Defaults to `default`. */
  readonly source?: string;
  readonly table: TableNameInput;
  readonly configuration?: TableConfiguration;
  readonly is_enum?: boolean;
  readonly object_relationships?: readonly RelationshipMetadata[];
  readonly array_relationships?: readonly RelationshipMetadata[];
  readonly computed_fields?: readonly JsonObject[];
  readonly remote_relationships?: readonly JsonObject[];
}

/** A TrackedTable object. */
export type TrackedTable = CustomObject<TrackedTableSpec>;

/** The keys of a table entry that a TrackedTable declares (the rest belong to other kinds). */
export const TRACKED_TABLE_KEYS = [
  'configuration',
  'is_enum',
  'object_relationships',
  'array_relationships',
  'computed_fields',
  'remote_relationships',
] as const;

function buildSpecSchema(): OpenApiSchema {
  const entry = toStructural(tableEntrySchema);
  const props = entry['properties'] as Record<string, OpenApiSchema>;
  const kept: Record<string, OpenApiSchema> = { table: props['table'] ?? {} };
  for (const k of TRACKED_TABLE_KEYS) {
    const p = props[k];
    if (p !== undefined) kept[k] = p;
  }
  return {
    type: 'object',
    required: ['table'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      source: { type: 'string', minLength: 1, maxLength: 253, default: 'default' },
      ...kept,
    },
  };
}

/** The CRD description of TrackedTable. */
export const trackedTableKind: KindDefinition = {
  kind: 'TrackedTable',
  plural: 'trackedtables',
  singular: 'trackedtable',
  shortNames: ['gtt'],
  specSchema: buildSpecSchema(),
  printerColumns: [{ name: 'Source', type: 'string', jsonPath: '.spec.source' }, ...STANDARD_PRINTER_COLUMNS],
};
