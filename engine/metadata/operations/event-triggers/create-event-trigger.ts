/**
 * `pg_create_event_trigger` (legacy `create_event_trigger`): stores an event
 * trigger under its table. The capture triggers in the source database follow
 * when the request is stored (Note [Capture follows the document] in
 * metadata/event-trigger-capture.ts).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { CleanupConfig, HeaderConf, OperationSpec } from '../../../events/definition.ts';
import { DEFAULT_RETRY_CONF } from '../../../events/definition.ts';
import { parseSchedule } from '../../../events/scheduled/cron-schedule.ts';
import { compileRequestTransform, compileResponseTransform } from '../../../transforms/index.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { JsonObject, TableNameInput } from '../../../model/document.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS, type MetadataCall } from '../../operation.ts';
import { createEventTriggerArgs } from '../../../model/schemas/args.ts';
import { findEventTrigger } from './find-event-trigger.ts';

interface CreateEventTriggerArgs {
  name: string;
  table: TableNameInput;
  source?: string;
  webhook?: string;
  webhook_from_env?: string;
  insert?: OperationSpec | null;
  update?: OperationSpec | null;
  delete?: OperationSpec | null;
  headers?: HeaderConf[] | null;
  retry_conf?: { num_retries?: number; interval_sec?: number; timeout_sec?: number } | null;
  replace?: boolean;
  enable_manual?: boolean;
  request_transform?: JsonObject;
  response_transform?: JsonObject;
  cleanup_config?: CleanupConfig;
  trigger_on_replication?: boolean;
}

/** v2 compat: the legacy operation has no `source` and no transforms. */
function legacyArgs(raw: unknown, call: MetadataCall): unknown {
  if (typeof raw === 'object' && raw !== null) {
    for (const k of ['source', 'request_transform', 'response_transform']) {
      if (k in raw) throw new EngineError(ErrorCode.ParseFailed, `the legacy create_event_trigger does not take "${k}"`, { path: argPath(call, k) });
    }
  }
  return raw;
}

/** The entry stored under the table (v2's shape). */
function storedEntry(a: CreateEventTriggerArgs): JsonObject {
  const definition: Record<string, unknown> = { enable_manual: a.enable_manual === true };
  for (const op of ['insert', 'update', 'delete'] as const) {
    const spec = a[op];
    if (spec !== undefined && spec !== null) definition[op] = spec.payload === undefined || spec.payload === null ? { columns: spec.columns } : spec;
  }
  const entry: Record<string, unknown> = {
    name: a.name,
    definition,
    retry_conf: { ...DEFAULT_RETRY_CONF, ...(a.retry_conf ?? {}) },
  };
  if (a.webhook !== undefined) entry['webhook'] = a.webhook;
  else entry['webhook_from_env'] = a.webhook_from_env;
  if (a.headers !== undefined && a.headers !== null && a.headers.length > 0) entry['headers'] = a.headers;
  if (a.request_transform !== undefined) entry['request_transform'] = a.request_transform;
  if (a.response_transform !== undefined) entry['response_transform'] = a.response_transform;
  if (a.cleanup_config !== undefined) entry['cleanup_config'] = a.cleanup_config;
  return entry as JsonObject;
}

/** The create-event-trigger operation. */
export const createEventTrigger = defineSourceOperation<CreateEventTriggerArgs>({
  mutates: true,
  schema: createEventTriggerArgs,
  legacyArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    requireTrackedTable(ctx, source, table, call, on);
    if ((args.webhook === undefined) === (args.webhook_from_env === undefined)) {
      throw new EngineError(ErrorCode.ParseFailed, 'exactly one of "webhook" and "webhook_from_env" is expected', { path: argPath(call) });
    }
    const ops = [args.insert, args.update, args.delete].filter((o) => o !== undefined && o !== null);
    if (ops.length === 0 && args.enable_manual !== true) {
      throw new EngineError(ErrorCode.ParseFailed, 'at least one of insert, update, delete or enable_manual is expected', { path: argPath(call) });
    }
    // Shape and templates are checked here, with their paths (the catalog compiles them again).
    if (args.request_transform !== undefined) compileRequestTransform(args.request_transform, argPath(call, 'request_transform'));
    if (args.response_transform !== undefined) compileResponseTransform(args.response_transform, argPath(call, 'response_transform'));
    if (args.cleanup_config !== undefined) {
      const schedule = parseSchedule(args.cleanup_config.schedule);
      if (!schedule.ok) {
        throw new EngineError(ErrorCode.ParseFailed, `invalid cron schedule: ${schedule.reason}`, { path: argPath(call, 'cleanup_config', 'schedule') });
      }
    }
    const existing = findEventTrigger(ctx.state.doc, source, args.name);
    if (existing !== undefined && args.replace !== true) {
      throw new EngineError(ErrorCode.AlreadyExists, `Event trigger with name "${args.name}" already exists`, { path: argPath(call, 'name') });
    }
    let doc = ctx.state.doc;
    if (existing !== undefined) {
      doc = updateTable(doc, source, existing.table, (t) => ({ ...t, event_triggers: t.event_triggers.filter((e) => e['name'] !== args.name) }));
    }
    const entry = storedEntry(args);
    doc = updateTable(doc, source, table, (t) => ({ ...t, event_triggers: [...t.event_triggers, entry] }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'event_trigger', source, table, name: args.name }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
