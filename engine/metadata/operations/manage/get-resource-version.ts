/**
 * `get_resource_version` (an Engine extension, not in v2): the resource_version of the metadata in
 * force and whether it is consistent, without the document. The Kubernetes operator polls it every
 * few seconds per engine to notice edits made around it (drift) and outages; `export_metadata`
 * would serialize the whole document on every poll.
 */
import { defineOperation } from '../../define.ts';
import { emptyArgs } from '../../../model/schemas/args.ts';

/** The get-resource-version operation. */
export const getResourceVersion = defineOperation<Record<string, unknown>>({
  mutates: false,
  schema: emptyArgs,
  async run(ctx) {
    await ctx.flush();
    const inconsistent = ctx.state.catalog.inconsistencies.length;
    return { response: { resource_version: ctx.state.resourceVersion, is_consistent: inconsistent === 0, inconsistent_objects: inconsistent } };
  },
});
