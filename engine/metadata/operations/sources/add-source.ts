/**
 * `<prefix>_add_source` (`pg_add_source`): adds a source of the prefix's
 * backend, its configuration checked with that backend's schema, or with
 * `replace_configuration` replaces the configuration of an existing one
 * (keeping its tables). A source that cannot be reached is refused with the
 * connection error.
 */
import type { Backend } from '../../../backends/backend.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject, SourceConfiguration, SourceMetadata } from '../../../model/document.ts';
import { findSource, updateSource } from '../../edit.ts';
import { argPath, SUCCESS, type Operation } from '../../operation.ts';
import { addSourceArgs } from '../../../model/schemas/args.ts';

interface AddSourceArgs {
  name: string;
  configuration: SourceConfiguration;
  replace_configuration?: boolean;
  customization?: JsonObject;
}

/** The add-source operation of each backend. */
const operations = new WeakMap<Backend, Operation>();

/** `<prefix>_add_source` for the backend of the prefix. */
export function addSourceFor(backend: Backend): Operation {
  let op = operations.get(backend);
  if (op === undefined) {
    op = addSource(backend);
    operations.set(backend, op);
  }
  return op;
}

function addSource(backend: Backend): Operation {
  return defineOperation<AddSourceArgs>({
    mutates: true,
    schema: addSourceArgs(backend.configuration.schema),
    async run(ctx, args, call) {
      const existing = findSource(ctx.state.doc, args.name);
      const customization = args.customization === undefined ? {} : { customization: args.customization };
      let doc;
      if (existing === undefined) {
        const source: SourceMetadata = {
          name: args.name,
          kind: backend.kind,
          tables: [],
          functions: [],
          configuration: args.configuration,
          ...customization,
        };
        doc = { ...ctx.state.doc, sources: [...ctx.state.doc.sources, source] };
      } else if (args.replace_configuration !== true) {
        // v2 answers at `$.args` (tests-py queries/v1/metadata/pg_add_source.yaml).
        throw new EngineError(ErrorCode.AlreadyExists, `source with name "${args.name}" already exists`, { path: argPath(call) });
      } else if (existing.kind !== backend.kind) {
        // v2 leaves a source of another kind as it is and answers success; its configuration would not be this backend's.
        throw new EngineError(
          ErrorCode.NotExists,
          `source with name "${args.name}" has backend type "${existing.kind}" which does not match the expected type ${backend.kind}`,
          { path: argPath(call) },
        );
      } else {
        doc = updateSource(ctx.state.doc, args.name, (s) => ({ ...s, configuration: args.configuration, ...customization }));
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
}
