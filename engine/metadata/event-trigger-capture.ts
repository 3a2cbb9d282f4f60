/**
 * The database side of event triggers, kept in step with the document: the
 * capture triggers each source needs after a request, compared with before.
 *
 * Note [Capture follows the document]
 * Rather than each operation declaring its DDL, the request's document after
 * all its calls is compared with the one before, per source and event
 * trigger name, on what the capture depends on (table, operations, columns,
 * payload). So every way a trigger comes or goes is covered by one rule:
 * pg_create/delete_event_trigger, `replace`, untracking a table, dropping a
 * source, replace_metadata, clear_metadata, a run_sql cascade, a bulk of
 * any of them. A trigger whose table is not consistent after the request is
 * not installed (its object is reported inconsistent instead); a trigger
 * gone from the document has its function dropped with CASCADE, which drops
 * its database triggers wherever they are. `reload_metadata` with
 * `recreate_event_triggers` re-installs every consistent trigger of the
 * sources it names. The DDL is an effect (Note [Effects] in effects.ts): it
 * runs in the transaction the request holds on the source (the one of its
 * run_sql, if any, so a table made by run_sql in the same bulk is seen),
 * before the store writes, and commits with the metadata; a DDL failure
 * refuses the request with nothing stored. Events already in the log stay:
 * events of a deleted trigger are no longer delivered but remain readable in
 * the source's `engine_events.event_log`.
 */
import type { CaptureSpec } from '../backends/backend.ts';
import { findBackend } from '../backends/registry.ts';
import type { SourcePreparer } from '../backends/source-preparer.ts';
import { tableKey, type Catalog } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { asEventTrigger, capturedOperations } from '../events/definition.ts';
import type { MetadataDocument } from '../model/document.ts';
import type { Effect } from './effects.ts';
import type { MetadataState, RunContext } from './operation.ts';
import { sourceTransaction } from './source-transaction.ts';

/** The key of the marker effect `reload_metadata` declares for `recreate_event_triggers`. */
export const RECREATE_KEY = 'recreate-event-triggers';

/** The marker: which sources' triggers to re-install. */
export interface RecreateMarker extends Effect {
  readonly sources: ReadonlySet<string> | 'all';
}

/** A marker effect that does nothing at commit; see {@link RECREATE_KEY}. */
export function recreateMarker(sources: ReadonlySet<string> | 'all'): RecreateMarker {
  return {
    key: RECREATE_KEY,
    description: 'recreate event triggers',
    sources,
    beforeCommit: async () => {},
    afterCommit: async () => {},
    abandon: async () => {},
  };
}

/** Each event trigger of `source` in `doc`: its capture, and a key that changes when the capture does. */
function capturesOf(doc: MetadataDocument, catalog: Catalog, source: string): Map<string, { spec: CaptureSpec; key: string }> {
  const out = new Map<string, { spec: CaptureSpec; key: string }>();
  const s = doc.sources.find((x) => x.name === source);
  for (const t of s?.tables ?? []) {
    const rowKey = catalog.sources.get(source)?.tables.get(tableKey(t.table))?.primaryKey ?? [];
    for (const entry of t.event_triggers) {
      const d = asEventTrigger(entry);
      const spec: CaptureSpec = { name: d.name, table: t.table, rowKey, ...capturedOperations(d) };
      out.set(d.name, { spec, key: JSON.stringify(spec) });
    }
  }
  return out;
}

function installable(catalog: Catalog, source: string, spec: CaptureSpec): boolean {
  const s = catalog.sources.get(source);
  return s?.eventTriggers?.has(spec.name) === true && s.tables.has(tableKey(spec.table));
}

/**
 * Declares, per source whose captures differ between `before` and the
 * pending state, the effect that changes them (Note [Capture follows the document]).
 */
export async function declareCaptureEffects(ctx: RunContext, before: MetadataState, preparer: SourcePreparer): Promise<void> {
  const after = ctx.state;
  const marker = ctx.effects.find((e) => e.key === RECREATE_KEY) as RecreateMarker | undefined;
  if (after.doc === before.doc && marker === undefined) return;
  const names = new Set([...before.doc.sources.map((s) => s.name), ...after.doc.sources.map((s) => s.name)]);
  for (const source of names) {
    const old = capturesOf(before.doc, before.catalog, source);
    const now = capturesOf(after.doc, after.catalog, source);
    const recreate = marker !== undefined && (marker.sources === 'all' || marker.sources.has(source));
    const remove = [...old.keys()].filter((n) => !now.has(n));
    const install = [...now.values()]
      .filter((c) => (recreate || old.get(c.spec.name)?.key !== c.key) && installable(after.catalog, source, c.spec))
      .map((c) => c.spec);
    if (remove.length === 0 && install.length === 0) continue;
    await declareOne(ctx, before, source, remove, install, preparer);
  }
}

async function declareOne(
  ctx: RunContext,
  before: MetadataState,
  source: string,
  remove: readonly string[],
  install: readonly CaptureSpec[],
  preparer: SourcePreparer,
): Promise<void> {
  // A dropped source is reached through what it was before the request.
  const inAfter = ctx.state.doc.sources.find((s) => s.name === source);
  const meta = inAfter ?? before.doc.sources.find((s) => s.name === source);
  const prepared = ctx.state.prepared.get(source) ?? before.prepared.get(source);
  const backend = meta === undefined ? undefined : findBackend(meta.kind);
  const support = backend?.eventTriggers;
  const open = backend?.openSqlTransaction;
  const conn = prepared?.ok === true ? preparer.connection(prepared.configKey) : undefined;
  if (meta === undefined || prepared === undefined || !prepared.ok || conn === undefined || support === undefined || open === undefined) {
    // Nothing to install on a source that cannot be reached; its triggers are reported inconsistent.
    if (install.length === 0) return;
    throw new EngineError(ErrorCode.InvalidConfiguration, `cannot install event triggers: source "${source}" cannot be reached`, { path: '$' });
  }
  const held = await sourceTransaction(ctx, open.bind(backend), meta, prepared, conn);
  await ctx.effect(`event-trigger-capture:${source}`, async () => ({
    key: `event-trigger-capture:${source}`,
    description: `the event trigger DDL of source "${source}"`,
    async beforeCommit() {
      try {
        await support.applyCapture(held.tx, { remove, install });
      } catch (e) {
        throw new EngineError(
          ErrorCode.PostgresError,
          `could not change the event triggers of source "${source}": ${e instanceof Error ? e.message : String(e)}`,
          {
            path: '$',
            status: 400,
          },
        );
      }
    },
    afterCommit: async () => {},
    abandon: async () => {},
  }));
}
