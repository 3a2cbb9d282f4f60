/**
 * The `Source` kind: one database source of the engine (`sources[]` of the metadata document).
 * Its spec is the source entry of the document plus engineRef/deletionPolicy.
 */
import { sourceEntrySchema } from '../../../engine/model/schemas/document.ts';
import type { JsonObject, SourceConfiguration } from '../../../engine/model/document.ts';
import {
  STANDARD_PRINTER_COLUMNS,
  deletionPolicySchema,
  engineRefSchema,
  optionalNameSchema,
  type CustomObject,
  type KindDefinition,
  type TargetFields,
} from './common.ts';
import { toStructural, type OpenApiSchema } from './structural.ts';

/**
 * `Source.spec`. An MSSQL source (`kind: mssql`) takes v2's configuration: `connection_info`
 * with `connection_string` (`{from_env: VARIABLE}` keeps the secret out of the resource: the
 * engine's environment gets it from a Secret), `pool_settings` and `isolation_level`.
 */
export interface SourceSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly name?: string;
  /** Defaults to `postgres`. */
  readonly kind?: 'postgres' | 'pg' | 'mssql' | 'bigquery';
  readonly configuration: SourceConfiguration;
  readonly customization?: JsonObject;
}

/** A Source object. */
export type Source = CustomObject<SourceSpec>;

function buildSpecSchema(): OpenApiSchema {
  const entry = toStructural(sourceEntrySchema);
  const props = { ...(entry['properties'] as Record<string, OpenApiSchema>) };
  delete props['tables'];
  delete props['functions'];
  return {
    type: 'object',
    required: ['configuration'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      ...props,
      name: optionalNameSchema,
      kind: { type: 'string', enum: ['postgres', 'pg', 'mssql', 'bigquery'], default: 'postgres' },
    },
  };
}

/** The CRD description of Source. */
export const sourceKind: KindDefinition = {
  kind: 'Source',
  plural: 'sources',
  singular: 'source',
  shortNames: ['gsrc'],
  specSchema: buildSpecSchema(),
  printerColumns: [{ name: 'Kind', type: 'string', jsonPath: '.spec.kind' }, ...STANDARD_PRINTER_COLUMNS],
};
