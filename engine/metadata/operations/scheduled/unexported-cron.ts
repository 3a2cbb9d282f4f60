/**
 * v2 compat: a cron trigger created with `include_in_metadata: false` is
 * not part of the exported metadata, and so survives `replace_metadata` and
 * `clear_metadata` (which replace what export shows).
 */
import type { JsonObject, MetadataDocument } from '../../../model/document.ts';

/** Whether export shows the trigger. */
export function isExported(trigger: JsonObject): boolean {
  return trigger['include_in_metadata'] === true;
}

/** The document as export shows it. */
export function withoutUnexportedCron(doc: MetadataDocument): MetadataDocument {
  return doc.cron_triggers.every(isExported) ? doc : { ...doc, cron_triggers: doc.cron_triggers.filter(isExported) };
}

/** `next` keeping the unexported triggers of `current` that `next` does not name. */
export function keepUnexportedCron(current: MetadataDocument, next: MetadataDocument): MetadataDocument {
  const named = new Set(next.cron_triggers.map((c) => c['name']));
  const kept = current.cron_triggers.filter((c) => !isExported(c) && !named.has(c['name']));
  return kept.length === 0 ? next : { ...next, cron_triggers: [...next.cron_triggers, ...kept] };
}
