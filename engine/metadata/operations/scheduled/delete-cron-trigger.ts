/** `delete_cron_trigger`: removes a cron trigger and its pending events. */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { deleteCronTriggerArgs } from '../../../model/schemas/scheduled.ts';
import { cronChanged } from './cron-effect.ts';

/** The delete-cron-trigger operation. */
export const deleteCronTrigger = defineOperation<{ name: string }>({
  mutates: true,
  schema: deleteCronTriggerArgs,
  async run(ctx, args, call) {
    if (!ctx.state.doc.cron_triggers.some((c) => c['name'] === args.name)) {
      throw new EngineError(ErrorCode.NotExists, `cron trigger with name: ${args.name} does not exist`, { path: argPath(call, 'name') });
    }
    const doc = { ...ctx.state.doc, cron_triggers: ctx.state.doc.cron_triggers.filter((c) => c['name'] !== args.name) };
    await ctx.commitEdit({ doc, touched: [], path: argPath(call) });
    await cronChanged(ctx, call, [args.name]);
    return { response: SUCCESS };
  },
});
