/**
 * `get_catalog_state` and `set_catalog_state` (v2): free-form JSON that v2's command-line client
 * (`cli`) and console (`console`) keep on the server. The `engine` project commands record the
 * migrations they applied here (Note [Where applied migrations are recorded] in
 * engine/cli/project/migrations.ts). It lives in the metadata database beside the document but is
 * no part of it: setting it changes no resource_version and rebuilds nothing.
 */
import { catalogStateStorage } from '../../../backends/registry.ts';
import { defineOperation } from '../../define.ts';
import { emptyArgs } from '../../../model/schemas/args.ts';
import type { JsonSchema } from '../../../model/schemas/validate.ts';

/** The get-catalog-state operation: `{id, cli_state, console_state}`. */
export const getCatalogState = defineOperation<Record<string, unknown>>({
  mutates: false,
  schema: emptyArgs,
  async run(ctx) {
    return { response: await catalogStateStorage.readCatalogState(ctx.metadataDatabaseUrl) };
  },
});

const setArgs: JsonSchema = {
  type: 'object',
  required: ['type', 'state'],
  additionalProperties: false,
  properties: { type: { enum: ['cli', 'console'] }, state: { type: 'object' } },
};

/** The set-catalog-state operation: replaces the `cli` or `console` state. */
export const setCatalogState = defineOperation<{ type: 'cli' | 'console'; state: Record<string, unknown> }>({
  mutates: false,
  schema: setArgs,
  async run(ctx, args) {
    await catalogStateStorage.writeCatalogState(ctx.metadataDatabaseUrl, args.type, args.state);
    return { response: { message: 'success' } };
  },
});
