/**
 * `pg_delete_event_trigger` (legacy `delete_event_trigger`): removes an event
 * trigger; its capture triggers are dropped when the request is stored (Note
 * [Capture follows the document] in metadata/event-trigger-capture.ts).
 */
import { defineOperation } from '../../define.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { deleteEventTriggerArgs } from '../../../model/schemas/args.ts';
import { requireEventTrigger } from './find-event-trigger.ts';

interface DeleteEventTriggerArgs {
  name: string;
  source?: string;
}

/** The delete-event-trigger operation. */
export const deleteEventTrigger = defineOperation<DeleteEventTriggerArgs>({
  mutates: true,
  schema: deleteEventTriggerArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    const found = requireEventTrigger(ctx, source, args.name, call);
    const doc = updateTable(ctx.state.doc, source, found.table, (t) => ({ ...t, event_triggers: t.event_triggers.filter((e) => e['name'] !== args.name) }));
    await ctx.commitEdit({ doc, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
