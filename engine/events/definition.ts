/**
 * An event trigger as the metadata document stores it (v2's shape, under a
 * table's `event_triggers`), typed, with v2's defaults. The document keeps
 * these entries as JSON objects (model/document.ts); this module is the
 * one reading of them.
 */

/** `columns` or `payload` of an operation spec: every column, or a list. */
export type ColumnSelection = '*' | readonly string[];

/** v2 `SubscribeOpSpec`: the columns that fire an update, and the columns sent. */
export interface OperationSpec {
  readonly columns: ColumnSelection;
  readonly payload?: ColumnSelection | null;
}

/** A header sent to the webhook: a value, or one read from the environment. */
export type HeaderConf = { readonly name: string; readonly value: string } | { readonly name: string; readonly value_from_env: string };

/** v2 `RetryConf` of event triggers. */
export interface RetryConf {
  readonly num_retries: number;
  readonly interval_sec: number;
  readonly timeout_sec: number;
}

/** v2 `AutoTriggerLogCleanupConfig`: when delivered events are removed. */
export interface CleanupConfig {
  /** A cron expression (five fields, UTC). */
  readonly schedule: string;
  readonly batch_size?: number;
  /** Hours after which a processed event is removed. */
  readonly clear_older_than: number;
  readonly timeout?: number;
  readonly clean_invocation_logs?: boolean;
  readonly paused?: boolean;
}

/** One stored event trigger. */
export interface EventTriggerDefinition {
  readonly name: string;
  readonly definition: {
    readonly enable_manual?: boolean;
    readonly insert?: OperationSpec | null;
    readonly update?: OperationSpec | null;
    readonly delete?: OperationSpec | null;
  };
  readonly retry_conf?: Partial<RetryConf>;
  readonly webhook?: string;
  readonly webhook_from_env?: string;
  readonly headers?: readonly HeaderConf[];
  readonly request_transform?: { readonly [k: string]: unknown };
  readonly response_transform?: { readonly [k: string]: unknown };
  readonly cleanup_config?: CleanupConfig;
}

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
