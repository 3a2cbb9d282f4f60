/**
 * `pg_add_source`: adds a Postgres source, or with `replace_configuration`
 * replaces the configuration of an existing one (keeping its tables). A source
 * that cannot be reached is refused with the connection error.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject, SourceConfiguration, SourceMetadata } from '../../document.ts';
import { findSource, updateSource } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { addSourceArgs } from '../../schemas/args.ts';

interface AddSourceArgs {
  name: string;
  configuration: SourceConfiguration;
  replace_configuration?: boolean;
  customization?: JsonObject;
}

/** The add-source operation. */
export const addSource = defineOperation<AddSourceArgs>({
  mutates: true,
  schema: addSourceArgs,
  async run(ctx, args, call) {
    const existing = findSource(ctx.state.doc, args.name);
    const customization = args.customization === undefined ? {} : { customization: args.customization };
    let doc;
    if (existing === undefined) {
      const source: SourceMetadata = {
        name: args.name,
        kind: 'postgres',
        tables: [],
        functions: [],
        configuration: args.configuration,
        ...customization,
      };
      doc = { ...ctx.state.doc, sources: [...ctx.state.doc.sources, source] };
    } else if (args.replace_configuration === true) {
      doc = updateSource(ctx.state.doc, args.name, (s) => ({ ...s, configuration: args.configuration, ...customization }));
    } else {
      throw new EngineError(ErrorCode.AlreadyExists, `source with name "${args.name}" already exists`, {
        path: argPath(call, 'name'),
      });
    }
    await ctx.commitEdit({
      doc,
      touched: [{ kind: 'source', source: args.name }],
      refresh: new Set([args.name]),
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});
