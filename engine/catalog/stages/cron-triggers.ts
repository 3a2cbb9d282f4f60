/**
 * Stage cron-triggers: each `cron_triggers` entry of the document, checked
 * (its shape and its five-field schedule) and with v2's defaults applied. An
 * entry stored by an older engine or written by hand that no longer passes is
 * inconsistent, with the reason, and is not scheduled.
 */
import { parseSchedule } from '../../events/scheduled/cron-schedule.ts';
import { compileTransforms, retryConfOf, type CronTrigger, type HeaderConf } from '../../events/scheduled/definitions.ts';
import type { JsonObject, MetadataDocument } from '../../model/document.ts';
import { cronTriggerSchema } from '../../model/schemas/scheduled.ts';
import { assertValid } from '../../model/schemas/validate.ts';
import { inconsistency } from '../inconsistency.ts';
import type { InconsistentObject } from '../types.ts';
import type { StageResult } from './stage.ts';

/** Resolves the document's cron triggers, by name. */
export function resolveCronTriggers(doc: MetadataDocument): StageResult<ReadonlyMap<string, CronTrigger>> {
  const output = new Map<string, CronTrigger>();
  const inconsistencies: InconsistentObject[] = [];
  for (const raw of doc.cron_triggers) {
    const name = typeof raw['name'] === 'string' ? raw['name'] : '';
    const ref = { kind: 'cron_trigger', name } as const;
    const checked = checkCronTrigger(raw);
    if (typeof checked === 'string') inconsistencies.push(inconsistency(ref, raw, checked));
    else output.set(name, checked);
  }
  return { output, inconsistencies };
}

/** A cron trigger entry → the resolved trigger, or why it cannot run. */
export function checkCronTrigger(raw: JsonObject): CronTrigger | string {
  try {
    assertValid(cronTriggerSchema, raw, '$');
  } catch (e) {
    return `cron trigger ${JSON.stringify(raw['name'] ?? null)}: ${e instanceof Error ? e.message : String(e)}`;
  }
  const schedule = parseSchedule(raw['schedule'] as string);
  if (!schedule.ok) return `cron trigger "${String(raw['name'])}": invalid schedule: ${schedule.reason}`;
  let transforms;
  try {
    transforms = compileTransforms(raw['request_transform'], raw['response_transform'], '$');
  } catch (e) {
    return `cron trigger "${String(raw['name'])}": ${e instanceof Error ? e.message : String(e)}`;
  }
  return {
    name: raw['name'] as string,
    schedule: schedule.expression,
    webhook: raw['webhook'] as string,
    headers: (raw['headers'] ?? []) as unknown as readonly HeaderConf[],
    payload: raw['payload'] ?? null,
    comment: typeof raw['comment'] === 'string' ? raw['comment'] : null,
    retryConf: retryConfOf(raw['retry_conf']),
    includeInMetadata: raw['include_in_metadata'] === true,
    ...transforms,
    raw,
  };
}
