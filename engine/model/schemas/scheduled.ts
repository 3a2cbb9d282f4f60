/**
 * JSON schemas of cron triggers and one-off scheduled events (v2's shapes:
 * `retry_conf` here is `RetryConfST`), of their operations' args, and of the
 * `cron_triggers` entries of the document.
 */
import { nameSchema, objectSchema } from './common.ts';
import type { JsonSchema } from './validate.ts';

function args(required: readonly string[], properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', required: [...required], properties, additionalProperties: false };
}

const nonNegativeInt: JsonSchema = { type: 'integer', minimum: 0 };

/** `{name, value}` or `{name, value_from_env}`. */
export const headerConfSchema: JsonSchema = {
  oneOf: [
    args(['name', 'value'], { name: nameSchema, value: { type: 'string' } }),
    args(['name', 'value_from_env'], { name: nameSchema, value_from_env: nameSchema }),
  ],
};

/** v2 `RetryConfST`. */
export const retryConfStSchema: JsonSchema = args([], {
  num_retries: nonNegativeInt,
  retry_interval_seconds: nonNegativeInt,
  timeout_seconds: { type: 'integer', minimum: 1 },
  tolerance_seconds: { type: 'integer', minimum: 1 },
});

const cronTriggerProperties: Record<string, JsonSchema> = {
  name: nameSchema,
  webhook: nameSchema,
  schedule: { type: 'string' },
  payload: {},
  headers: { type: 'array', items: headerConfSchema },
  retry_conf: retryConfStSchema,
  include_in_metadata: { type: 'boolean' },
  comment: { type: ['string', 'null'] },
  request_transform: objectSchema,
  response_transform: objectSchema,
};

/** A `cron_triggers` entry of the document. */
export const cronTriggerSchema: JsonSchema = args(['name', 'webhook', 'schedule'], cronTriggerProperties);

/** `create_cron_trigger`. */
export const createCronTriggerArgs: JsonSchema = args(['name', 'webhook', 'schedule', 'include_in_metadata'], {
  ...cronTriggerProperties,
  replace: { type: 'boolean' },
});

/** `delete_cron_trigger`. */
export const deleteCronTriggerArgs: JsonSchema = args(['name'], { name: nameSchema });

/** `get_cron_triggers`. */
export const getCronTriggersArgs: JsonSchema = args([], {});

/** `create_scheduled_event`. */
export const createScheduledEventArgs: JsonSchema = args(['webhook', 'schedule_at'], {
  webhook: nameSchema,
  schedule_at: { type: 'string' },
  payload: {},
  headers: { type: 'array', items: headerConfSchema },
  retry_conf: retryConfStSchema,
  comment: { type: ['string', 'null'] },
  request_transform: objectSchema,
  response_transform: objectSchema,
});

const eventType: JsonSchema = { enum: ['one_off', 'cron'] };
const uuid: JsonSchema = { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' };
const pagination: JsonSchema = args([], { limit: nonNegativeInt, offset: nonNegativeInt });

/** `delete_scheduled_event`. */
export const deleteScheduledEventArgs: JsonSchema = args(['type', 'event_id'], { type: eventType, event_id: uuid });

/** `get_scheduled_events`. */
export const getScheduledEventsArgs: JsonSchema = args(['type'], {
  type: eventType,
  trigger_name: nameSchema,
  pagination,
  status: { type: 'array', items: { enum: ['scheduled', 'locked', 'delivered', 'error', 'dead'] } },
  get_rows_count: { type: 'boolean' },
});

/** `get_scheduled_event_invocations`. */
export const getScheduledEventInvocationsArgs: JsonSchema = args(['type'], {
  type: eventType,
  event_id: uuid,
  trigger_name: nameSchema,
  pagination,
  get_rows_count: { type: 'boolean' },
});
