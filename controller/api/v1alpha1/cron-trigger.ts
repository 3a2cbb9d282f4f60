/**
 * The `CronTrigger` kind: a webhook called on a cron schedule (`cron_triggers[]` of the metadata
 * document).
 */
import type { JsonObject, JsonValue } from '../../../engine/model/document.ts';
import {
  STANDARD_PRINTER_COLUMNS,
  deletionPolicySchema,
  engineRefSchema,
  optionalNameSchema,
  type CustomObject,
  type KindDefinition,
  type TargetFields,
} from './common.ts';
import { headersSchema, retryConfSchema, transformSchema, type HeaderSpec } from './webhook-fields.ts';

/** `CronTrigger.spec`. */
export interface CronTriggerSpec extends TargetFields {
  /** Defaults to metadata.name. */
  readonly name?: string;
  readonly webhook: string;
  readonly schedule: string;
  readonly payload?: JsonValue;
  readonly headers?: readonly HeaderSpec[];
  readonly retry_conf?: JsonObject;
  /** Defaults to true: a trigger managed from Kubernetes belongs in the metadata. */
  readonly include_in_metadata?: boolean;
  readonly comment?: string;
  readonly request_transform?: JsonObject;
  readonly response_transform?: JsonObject;
}

/** A CronTrigger object. */
export type CronTrigger = CustomObject<CronTriggerSpec>;

/** The CRD description of CronTrigger. */
export const cronTriggerKind: KindDefinition = {
  kind: 'CronTrigger',
  plural: 'crontriggers',
  singular: 'crontrigger',
  shortNames: ['gcron'],
  specSchema: {
    type: 'object',
    required: ['webhook', 'schedule'],
    properties: {
      engineRef: engineRefSchema,
      deletionPolicy: deletionPolicySchema,
      name: optionalNameSchema,
      webhook: { type: 'string', minLength: 1, maxLength: 2048 },
      schedule: {
        type: 'string',
        minLength: 9,
        maxLength: 256,
        description: 'A cron expression of five fields.',
      },
      payload: { 'x-kubernetes-preserve-unknown-fields': true },
      headers: headersSchema,
      retry_conf: retryConfSchema,
      include_in_metadata: { type: 'boolean', default: true },
      comment: { type: 'string', maxLength: 4096 },
      request_transform: transformSchema,
      response_transform: transformSchema,
    },
    'x-kubernetes-validations': [
      { rule: "self.schedule.split(' ').filter(f, f != '').size() == 5", message: 'schedule must be a cron expression of five fields' },
    ],
  },
  printerColumns: [{ name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' }, ...STANDARD_PRINTER_COLUMNS],
};
