/**
 * v2's event log cleanup calls: `cleanup_event_trigger_logs` (delete a
 * trigger's old events now: Note [Event log cleanup] in events/log-cleanup.ts)
 * and `pause_event_trigger_cleanups` / `resume_event_trigger_cleanups` (set
 * `cleanup_config.paused` of the chosen triggers, which the scheduled cleanup
 * reads). v2 serves them backend-neutral, the source named in the args.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { cleanupEventLog } from '../../../events/log-cleanup.ts';
import type { JsonObject, MetadataDocument } from '../../../model/document.ts';
import { cleanupEventTriggerLogsArgs, toggleEventTriggerCleanupsArgs } from '../../../model/schemas/args.ts';
import { defineOperation, requireSource } from '../../define.ts';
import { argPath, SUCCESS, type MetadataCall, type RunContext } from '../../operation.ts';
import { eventLogOf, findEventTrigger } from './find-event-trigger.ts';

interface CleanupArgs {
  readonly event_trigger_name: string;
  readonly source?: string;
  readonly batch_size?: number;
  readonly clear_older_than: number;
  readonly timeout?: number;
  readonly clean_invocation_logs?: boolean;
}

/** v2's default `batch_size` of a cleanup. */
const DEFAULT_BATCH = 10_000;

/** `cleanup_event_trigger_logs`: answers success and how many events went. */
export const cleanupEventTriggerLogs = defineOperation<CleanupArgs>({
  mutates: false,
  schema: cleanupEventTriggerLogsArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    requireSource(ctx, source, call);
    if (findEventTrigger(ctx.state.doc, source, args.event_trigger_name) === undefined) {
      throw new EngineError(ErrorCode.NotExists, `event trigger "${args.event_trigger_name}" does not exist`, { path: argPath(call, 'event_trigger_name') });
    }
    const log = eventLogOf(ctx, source, call);
    const deleted = await cleanupEventLog(
      log,
      args.event_trigger_name,
      args.clear_older_than,
      args.batch_size ?? DEFAULT_BATCH,
      args.clean_invocation_logs === true,
    );
    return { response: { ...SUCCESS, deleted_event_logs: deleted } };
  },
});

type Toggle = { readonly sources: '*' | readonly string[] } | ReadonlyArray<{ readonly source_name?: string; readonly event_triggers: readonly string[] }>;

/** The triggers a toggle names, by source: every trigger with a cleanup config of the sources, or the named ones (each must have one). */
function chosenTriggers(ctx: RunContext, toggle: Toggle, call: MetadataCall): Map<string, Set<string>> {
  const doc = ctx.state.doc;
  const chosen = new Map<string, Set<string>>();
  const add = (source: string, name: string): void => {
    const set = chosen.get(source) ?? new Set<string>();
    set.add(name);
    chosen.set(source, set);
  };
  if (!Array.isArray(toggle)) {
    const { sources } = toggle as { readonly sources: '*' | readonly string[] };
    const names = sources === '*' ? doc.sources.map((s) => s.name) : sources;
    for (const name of names) {
      const s = requireSource(ctx, name, call, 'event_triggers');
      for (const t of s.tables) for (const e of t.event_triggers) if (e['cleanup_config'] !== undefined) add(name, String(e['name']));
    }
    return chosen;
  }
  for (const q of toggle) {
    const source = q.source_name ?? 'default';
    requireSource(ctx, source, call, 'event_triggers');
    for (const name of q.event_triggers) {
      const found = findEventTrigger(doc, source, name);
      if (found === undefined) throw new EngineError(ErrorCode.NotExists, `event trigger "${name}" does not exist`, { path: argPath(call, 'event_triggers') });
      if (found.definition.cleanup_config === undefined) {
        throw new EngineError(ErrorCode.NotExists, `cleanup config does not exist for ${name}`, { path: argPath(call, 'event_triggers') });
      }
      add(source, name);
    }
  }
  return chosen;
}

/** `doc` with `cleanup_config.paused` set to `paused` on the chosen triggers. */
function withPaused(doc: MetadataDocument, chosen: ReadonlyMap<string, ReadonlySet<string>>, paused: boolean): MetadataDocument {
  return {
    ...doc,
    sources: doc.sources.map((s) => {
      const names = chosen.get(s.name);
      if (names === undefined) return s;
      return {
        ...s,
        tables: s.tables.map((t) => ({
          ...t,
          event_triggers: t.event_triggers.map((e): JsonObject => {
            if (!names.has(String(e['name']))) return e;
            return { ...e, cleanup_config: { ...(e['cleanup_config'] as JsonObject), paused } };
          }),
        })),
      };
    }),
  };
}

function toggleOperation(paused: boolean): ReturnType<typeof defineOperation<{ readonly event_triggers: Toggle }>> {
  return defineOperation<{ readonly event_triggers: Toggle }>({
    mutates: true,
    schema: toggleEventTriggerCleanupsArgs,
    async run(ctx, args, call) {
      const chosen = chosenTriggers(ctx, args.event_triggers, call);
      await ctx.commitEdit({ doc: withPaused(ctx.state.doc, chosen, paused), touched: [], path: argPath(call) });
      return { response: SUCCESS };
    },
  });
}

/** `pause_event_trigger_cleanups`. */
export const pauseEventTriggerCleanups = toggleOperation(true);

/** `resume_event_trigger_cleanups`. */
export const resumeEventTriggerCleanups = toggleOperation(false);
