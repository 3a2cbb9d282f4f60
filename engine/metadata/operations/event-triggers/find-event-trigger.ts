/**
 * Finding an event trigger by name in a source, and the source's event log,
 * for the event-trigger operations.
 */
import type { EventLog } from '../../../backends/backend.ts';
import { findBackend } from '../../../backends/registry.ts';
import type { EventTriggerInfo, QualifiedName } from '../../../catalog/types.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { asEventTrigger, type EventTriggerDefinition } from '../../../events/definition.ts';
import { requireSource } from '../../define.ts';
import type { MetadataDocument } from '../../../model/document.ts';
import { argPath, type MetadataCall, type RunContext } from '../../operation.ts';

/** A stored event trigger with the table it is on. */
export interface FoundEventTrigger {
  readonly table: QualifiedName;
  readonly definition: EventTriggerDefinition;
}

/** The event trigger `name` of `source`, if any. */
export function findEventTrigger(doc: MetadataDocument, source: string, name: string): FoundEventTrigger | undefined {
  for (const t of doc.sources.find((s) => s.name === source)?.tables ?? []) {
    const e = t.event_triggers.find((x) => x['name'] === name);
    if (e !== undefined) return { table: t.table, definition: asEventTrigger(e) };
  }
  return undefined;
}

/** The stored event trigger; `not-exists` when there is none. */
export function requireEventTrigger(ctx: RunContext, source: string, name: string, call: MetadataCall): FoundEventTrigger {
  requireSource(ctx, source, call);
  const found = findEventTrigger(ctx.state.doc, source, name);
  if (found === undefined) {
    throw new EngineError(ErrorCode.NotExists, `event trigger with name "${name}" does not exist`, { path: argPath(call, 'name') });
  }
  return found;
}

/** The consistent event trigger (catalog); `invalid-configuration` when it is inconsistent. */
export function requireConsistentEventTrigger(ctx: RunContext, source: string, name: string, call: MetadataCall): EventTriggerInfo {
  requireEventTrigger(ctx, source, name, call);
  const info = ctx.state.catalog.sources.get(source)?.eventTriggers?.get(name);
  if (info === undefined) {
    throw new EngineError(ErrorCode.InvalidConfiguration, `event trigger "${name}" is inconsistent`, { path: argPath(call, 'name') });
  }
  return info;
}

/** The event log of `source`; `invalid-configuration` when the source cannot be reached or has none. */
export function eventLogOf(ctx: RunContext, source: string, call: MetadataCall): EventLog {
  const meta = requireSource(ctx, source, call);
  const info = ctx.state.catalog.sources.get(source);
  const support = findBackend(meta.kind)?.eventTriggers;
  if (info === undefined || support === undefined) {
    throw new EngineError(ErrorCode.InvalidConfiguration, `source "${source}" is inconsistent or has no event triggers`, { path: argPath(call, 'source') });
  }
  return support.eventLog(info.connection);
}
