/**
 * `export_metadata`: version 1 answers the document; version 2 answers
 * `{resource_version, metadata}`.
 */
import { defineOperation } from '../../define.ts';
import { toWireDocument } from '../../../model/document.ts';
import { emptyArgs } from '../../../model/schemas/args.ts';
import { withoutUnexportedCron } from '../scheduled/unexported-cron.ts';

/** The export-metadata operation. */
export const exportMetadata = defineOperation<Record<string, unknown>>({
  mutates: false,
  schema: emptyArgs,
  async run(ctx, _args, call) {
    const metadata = toWireDocument(withoutUnexportedCron(ctx.state.doc));
    if (call.version === 2) return { response: { resource_version: ctx.state.resourceVersion, metadata } };
    return { response: metadata };
  },
});
