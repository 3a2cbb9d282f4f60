/**
 * An event trigger as the metadata document stores it (v2's shape, under a
 * table's `event_triggers`), typed, with v2's defaults. The entry's type is the document model's (model/document.ts); this module
 * is the one reading of them.
 */

import type { EventRetryConf, EventTriggerMetadata, WebhookHeader } from '../model/document.ts';

export type { CleanupConfig, ColumnSelection, OperationSpec } from '../model/document.ts';
import type { ColumnSelection } from '../model/document.ts';

/** A header sent to the webhook: a value, or one read from the environment. */
export type HeaderConf = WebhookHeader;

/** v2 `RetryConf` of event triggers. */
export type RetryConf = EventRetryConf;

/** One stored event trigger (the document model's type). */
export type EventTriggerDefinition = EventTriggerMetadata;

/** v2 compat: the defaults of `retry_conf`. */
export const DEFAULT_RETRY_CONF: RetryConf = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };

/** `retry_conf` with v2's defaults filled in. */
export function retryConfOf(d: EventTriggerDefinition): RetryConf {
  return { ...DEFAULT_RETRY_CONF, ...(d.retry_conf ?? {}) };
}

/** The operations an event trigger captures, with `payload` defaulted to every column. */
export function capturedOperations(d: EventTriggerDefinition): {
  insert?: { columns: ColumnSelection; payload: ColumnSelection };
  update?: { columns: ColumnSelection; payload: ColumnSelection };
  delete?: { columns: ColumnSelection; payload: ColumnSelection };
} {
  const out: Record<string, { columns: ColumnSelection; payload: ColumnSelection }> = {};
  for (const op of ['insert', 'update', 'delete'] as const) {
    const spec = d.definition[op];
    if (spec === undefined || spec === null) continue;
    out[op] = { columns: spec.columns, payload: spec.payload ?? '*' };
  }
  return out;
}

/** Reads a stored entry (already checked by the document schema). */
export function asEventTrigger(entry: unknown): EventTriggerDefinition {
  return entry as EventTriggerDefinition;
}

/**
 * v2 compat: event trigger names are letters, digits, `_` and `-`, starting
 * with a letter, at most 42 characters, so that `notify_engine_<name>_UPDATE`
 * fits PostgreSQL's 63-byte identifiers.
 */
export const EVENT_TRIGGER_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*$';

/** The longest event trigger name. */
export const EVENT_TRIGGER_NAME_MAX = 42;
