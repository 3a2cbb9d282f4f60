/**
 * Stage "event triggers": each table's stored event triggers → the
 * {@link EventTriggerInfo}s delivery reads, or why one is inconsistent: its
 * table is not a consistent tracked table, a column it names is missing, or
 * an environment variable it reads (`webhook_from_env`, a header's
 * `value_from_env`) is not set. Runs last; it only adds `eventTriggers` to
 * the sources it is given.
 */
import { asEventTrigger, capturedOperations, retryConfOf, type ColumnSelection } from '../../events/definition.ts';
import { resolveHeaders, resolveWebhookUrl } from '../../events/webhook-config.ts';
import type { MetadataDocument } from '../../model/document.ts';
import { compileRequestTransform, compileResponseTransform, type CompiledRequestTransform, type CompiledResponseTransform } from '../../transforms/index.ts';
import { sourceInconsistency } from '../inconsistency.ts';
import { catalogNaming } from '../source-naming.ts';
import { tableKey, type EventTriggerInfo, type InconsistentObject, type SourceInfo, type TableInfo } from '../types.ts';
import type { StageResult } from './stage.ts';

function missingColumn(table: TableInfo, selections: readonly ColumnSelection[]): string | undefined {
  const known = new Set(table.columns.map((c) => c.name));
  for (const s of selections) if (s !== '*') for (const c of s) if (!known.has(c)) return c;
  return undefined;
}

/** The event trigger, or why it cannot be. */
function resolveOne(source: string, table: TableInfo | undefined, entry: unknown): EventTriggerInfo | { reason: string } {
  const d = asEventTrigger(entry);
  if (table === undefined) return { reason: 'the table of the event trigger is not a consistent tracked table' };
  if (table.kind !== 'table' && table.kind !== 'partitioned_table')
    return { reason: `event triggers are supported on tables only, not on a ${table.kind.replace('_', ' ')}` };
  const ops = capturedOperations(d);
  const missing = missingColumn(
    table,
    Object.values(ops).flatMap((o) => [o.columns, o.payload]),
  );
  if (missing !== undefined) return { reason: `column "${missing}" does not exist in table "${table.name.name}"` };
  const url = resolveWebhookUrl(d.webhook, d.webhook_from_env);
  if (!url.ok) return { reason: `the webhook of event trigger "${d.name}" cannot be resolved: ${url.reason}` };
  const headers = resolveHeaders(d.headers);
  if (!headers.ok) return { reason: `the headers of event trigger "${d.name}" cannot be resolved: ${headers.reason}` };
  let requestTransform: CompiledRequestTransform | undefined;
  let responseTransform: CompiledResponseTransform | undefined;
  try {
    if (d.request_transform !== undefined) requestTransform = compileRequestTransform(d.request_transform, '$.request_transform');
    if (d.response_transform !== undefined) responseTransform = compileResponseTransform(d.response_transform, '$.response_transform');
  } catch (e) {
    return { reason: `the transforms of event trigger "${d.name}" are invalid: ${e instanceof Error ? e.message : String(e)}` };
  }
  const retry = retryConfOf(d);
  const c = d.cleanup_config;
  return {
    name: d.name,
    source,
    table: table.name,
    webhook: url.value,
    headers: headers.value,
    retry: { numRetries: retry.num_retries, intervalSec: retry.interval_sec, timeoutSec: retry.timeout_sec },
    operations: ops,
    enableManual: d.definition.enable_manual === true,
    ...(requestTransform === undefined ? {} : { requestTransform }),
    ...(responseTransform === undefined ? {} : { responseTransform }),
    ...(c === undefined
      ? {}
      : {
          cleanup: {
            schedule: c.schedule,
            batchSize: c.batch_size ?? 10000,
            clearOlderThanHours: c.clear_older_than,
            cleanInvocationLogs: c.clean_invocation_logs === true,
            paused: c.paused === true,
          },
        }),
  };
}

/** Adds each source's consistent event triggers to it (Note [Catalog stages] in build.ts). */
export function resolveEventTriggers(doc: MetadataDocument, sources: ReadonlyMap<string, SourceInfo>): StageResult<Map<string, SourceInfo>> {
  const out = new Map(sources);
  const inconsistencies: InconsistentObject[] = [];
  for (const s of doc.sources) {
    const info = sources.get(s.name);
    if (info === undefined) continue;
    const triggers = new Map<string, EventTriggerInfo>();
    for (const t of s.tables) {
      for (const entry of t.event_triggers) {
        const r = resolveOne(s.name, info.tables.get(tableKey(t.table)), entry);
        if ('reason' in r) {
          const name = String(entry['name']);
          inconsistencies.push(
            sourceInconsistency(
              catalogNaming(s, info),
              { kind: 'event_trigger', source: s.name, table: t.table, name },
              { table: t.table, configuration: entry },
              r.reason,
            ),
          );
        } else triggers.set(r.name, r);
      }
    }
    if (triggers.size > 0) out.set(s.name, { ...info, eventTriggers: triggers });
  }
  return { output: out, inconsistencies };
}
