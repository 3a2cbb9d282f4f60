/**
 * `create_cron_trigger`: adds a cron trigger (or replaces one with
 * `replace: true`); its next fire times are stored once the metadata is.
 */
import { resolveEnv } from '../../../cli/env.ts';
import { parseSchedule } from '../../../events/scheduled/cron-schedule.ts';
import { compileTransforms, resolveHeaders, type HeaderConf } from '../../../events/scheduled/definitions.ts';
import { isHttpUrl } from '../../../events/scheduled/webhook-url.ts';
import { resolveUrlTemplate } from '../../../transforms/index.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject } from '../../../model/document.ts';
import { argPath, SUCCESS, type MetadataCall } from '../../operation.ts';
import { createCronTriggerArgs } from '../../../model/schemas/scheduled.ts';
import { cronChanged, requireScheduledEvents } from './cron-effect.ts';

type CreateCronTriggerArgs = JsonObject & {
  readonly name: string;
  readonly webhook: string;
  readonly schedule: string;
  readonly include_in_metadata: boolean;
};

/**
 * Refuses a webhook whose environment variables are not set, or that is not
 * an http(s) URL once resolved, and transforms that do not compile.
 */
export function checkWebhook(webhook: string, headers: readonly HeaderConf[], transforms: { request?: unknown; response?: unknown }, call: MetadataCall): void {
  const url = resolveUrlTemplate(webhook, resolveEnv, argPath(call, 'webhook'));
  if (!isHttpUrl(url)) {
    throw new EngineError(ErrorCode.ParseFailed, `the webhook is not an http(s) URL: ${JSON.stringify(url)}`, { path: argPath(call, 'webhook') });
  }
  compileTransforms(transforms.request, transforms.response, argPath(call));
  const h = resolveHeaders(headers, resolveEnv);
  if (!h.ok)
    throw new EngineError(ErrorCode.NotFound, `environment variable(s) not set: ${h.missing.join(', ')}`, {
      path: argPath(call, 'headers'),
      status: 400,
    });
}

/** The create-cron-trigger operation. */
export const createCronTrigger = defineOperation<CreateCronTriggerArgs>({
  mutates: true,
  schema: createCronTriggerArgs,
  async run(ctx, args, call) {
    requireScheduledEvents(ctx, call);
    const schedule = parseSchedule(args.schedule);
    if (!schedule.ok)
      throw new EngineError(ErrorCode.ParseFailed, `invalid cron schedule "${args.schedule}": ${schedule.reason}`, { path: argPath(call, 'schedule') });
    checkWebhook(
      args.webhook,
      (args['headers'] ?? []) as unknown as readonly HeaderConf[],
      { request: args['request_transform'], response: args['response_transform'] },
      call,
    );
    const { replace, ...entry } = args;
    const exists = ctx.state.doc.cron_triggers.some((c) => c['name'] === args.name);
    if (exists && replace !== true) {
      throw new EngineError(ErrorCode.AlreadyExists, `cron trigger with name: ${args.name} already exists`, { path: argPath(call) });
    }
    const trigger: JsonObject = { ...entry, schedule: schedule.expression };
    const others = ctx.state.doc.cron_triggers.filter((c) => c['name'] !== args.name);
    const doc = { ...ctx.state.doc, cron_triggers: [...others, trigger] };
    await ctx.commitEdit({ doc, touched: [{ kind: 'cron_trigger', name: args.name }], path: argPath(call) });
    // A replaced trigger's stored times were made for its old definition (timeout, tolerance).
    await cronChanged(ctx, call, exists ? [args.name] : []);
    return { response: SUCCESS };
  },
});
