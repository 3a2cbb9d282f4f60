/**
 * `reload_metadata`: introspects the chosen sources again (all by default) and
 * rebuilds. Never refused for inconsistency; the answer reports it.
 * `recreate_event_triggers` re-installs the capture triggers of the sources it
 * names (Note [Capture follows the document] in metadata/event-trigger-capture.ts).
 * `reload_remote_schemas` (default all) introspects remote schemas again.
 */
import { defineOperation } from '../../define.ts';
import { argPath } from '../../operation.ts';
import { reloadMetadataArgs } from '../../../model/schemas/args.ts';
import type { Refresh } from '../../../backends/source-preparer.ts';
import { wireInconsistencies } from './inconsistent-objects.ts';
import { RECREATE_KEY, recreateMarker } from '../../event-trigger-capture.ts';

interface ReloadMetadataArgs {
  reload_remote_schemas?: boolean | string[];
  reload_sources?: boolean | string[];
  recreate_event_triggers?: boolean | string[];
}

/** The reload-metadata operation. */
export const reloadMetadata = defineOperation<ReloadMetadataArgs>({
  mutates: true,
  schema: reloadMetadataArgs,
  legacyArgs: (raw) => raw,
  async run(ctx, args, call) {
    const which = args.reload_sources ?? true;
    const refresh: Refresh = which === true ? 'all' : which === false ? new Set() : new Set(which);
    const remotes = args.reload_remote_schemas ?? true;
    const next = await ctx.commitEdit({
      doc: ctx.state.doc,
      touched: [],
      refresh,
      refreshRemotes: remotes === true ? 'all' : remotes === false ? new Set() : new Set(remotes),
      allowInconsistency: true,
      path: argPath(call),
    });
    const recreate = args.recreate_event_triggers ?? false;
    if (recreate !== false) await ctx.effect(RECREATE_KEY, async () => recreateMarker(recreate === true ? 'all' : new Set(recreate)));
    const list = wireInconsistencies(next.catalog.inconsistencies);
    return {
      response: {
        message: 'success',
        is_consistent: list.length === 0,
        ...(list.length === 0 ? {} : { inconsistent_objects: list }),
      },
    };
  },
});
