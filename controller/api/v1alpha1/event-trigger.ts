/**
 * The `EventTrigger` kind: a webhook called on inserts, updates or deletes of a table — an entry
 * of `event_triggers` of a table in the metadata document.
 */
import { tableNameSchema } from '../../../engine/model/schemas/common.ts';
import type { JsonObject, TableNameInput } from '../../../engine/model/document.ts';
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
import { headersSchema, retryConfSchema, transformSchema, type HeaderSpec } from './webhook-fields.ts';

/** What an operation spec sends: `*` or a list of columns (kept free-form like the engine's). */
export interface OperationSpec {
  readonly columns: '*' | readonly string[];
  readonly payload?: '*' | readonly string[];
}

/** `EventTrigger.spec`. */
export interface EventTriggerSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly name?: string;
  /** Defaults to `default`. */
  readonly source?: string;
  readonly table: TableNameInput;
  readonly webhook?: string;
  readonly webhook_from_env?: string;
  readonly insert?: OperationSpec;
  readonly update?: OperationSpec;
  readonly delete?: OperationSpec;
  readonly enable_manual?: boolean;
  readonly headers?: readonly HeaderSpec[];
  readonly retry_conf?: JsonObject;
  readonly request_transform?: JsonObject;
  readonly response_transform?: JsonObject;
}

/** An EventTrigger object. */
export type EventTrigger = CustomObject<EventTriggerSpec>;

const columnsOrStar: OpenApiSchema = {
  'x-kubernetes-preserve-unknown-fields': true,
  description: '"*" or a list of column names',
};

const operationSpecSchema: OpenApiSchema = {
  type: 'object',
  required: ['columns'],
  properties: { columns: columnsOrStar, payload: columnsOrStar },
};

/** The CRD description of EventTrigger. */
export const eventTriggerKind: KindDefinition = {
  kind: 'EventTrigger',
  plural: 'eventtriggers',
  singular: 'eventtrigger',
  shortNames: ['gevt'],
  specSchema: {
    type: 'object',
    required: ['table'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      name: { ...optionalNameSchema, maxLength: 42, pattern: '^[A-Za-z0-9_-]+$' },
      source: { type: 'string', minLength: 1, maxLength: 253, default: 'default' },
      table: toStructural(tableNameSchema),
      webhook: { type: 'string', maxLength: 2048 },
      webhook_from_env: { type: 'string', minLength: 1, maxLength: 256 },
      insert: operationSpecSchema,
      update: operationSpecSchema,
      delete: operationSpecSchema,
      enable_manual: { type: 'boolean', default: false },
      headers: headersSchema,
      retry_conf: retryConfSchema,
      request_transform: transformSchema,
      response_transform: transformSchema,
    },
    'x-kubernetes-validations': [
      { rule: 'has(self.webhook) != has(self.webhook_from_env)', message: 'exactly one of webhook or webhook_from_env is required' },
      {
        rule: 'has(self.insert) || has(self.update) || has(self.delete) || (has(self.enable_manual) && self.enable_manual)',
        message: 'an event trigger needs at least one of insert, update, delete or enable_manual',
      },
    ],
  },
  printerColumns: [{ name: 'Source', type: 'string', jsonPath: '.spec.source' }, ...STANDARD_PRINTER_COLUMNS],
};
