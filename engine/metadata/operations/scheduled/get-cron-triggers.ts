/** `get_cron_triggers`: every cron trigger, those not included in exported metadata too. */
import { defineOperation } from '../../define.ts';
import { getCronTriggersArgs } from '../../../model/schemas/scheduled.ts';

/** The get-cron-triggers operation. */
export const getCronTriggers = defineOperation<Record<string, never>>({
  mutates: false,
  schema: getCronTriggersArgs,
  async run(ctx) {
    const cron_triggers = ctx.state.doc.cron_triggers.map((c) => ({ include_in_metadata: false, ...c }));
    return await Promise.resolve({ response: { cron_triggers } });
  },
});
