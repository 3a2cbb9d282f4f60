/**
 * `<prefix>_update_source` (`pg_update_source`; v2 compat: runUpdateSource in
 * Hasura/RQL/DDL/Schema/Source.hs): replaces the `configuration` and/or the
 * `customization` of an existing source of the prefix's backend, keeping its
 * tables and functions. A key left out keeps its value; the source is
 * introspected again when its configuration changes.
 */
import type { Backend } from '../../../backends/backend.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject, SourceConfiguration } from '../../../model/document.ts';
import { findSource, updateSource } from '../../edit.ts';
import { argPath, SUCCESS, type Operation } from '../../operation.ts';
import { nameSchema, objectSchema } from '../../../model/schemas/common.ts';

interface UpdateSourceArgs {
  name: string;
  configuration?: SourceConfiguration;
  customization?: JsonObject;
}

const operations = new WeakMap<Backend, Operation>();

/** `<prefix>_update_source` for the backend of the prefix. */
export function updateSourceFor(backend: Backend): Operation {
  let op = operations.get(backend);
  if (op === undefined) {
    op = updateSourceOp(backend);
    operations.set(backend, op);
  }
  return op;
}

function updateSourceOp(backend: Backend): Operation {
  return defineOperation<UpdateSourceArgs>({
    mutates: true,
    schema: {
      type: 'object',
      required: ['name'],
      properties: { name: nameSchema, configuration: backend.configuration.schema, customization: objectSchema },
      additionalProperties: false,
    },
    async run(ctx, args, call) {
      const existing = findSource(ctx.state.doc, args.name);
      // v2's messages, at `$.args`.
      if (existing === undefined) {
        throw new EngineError(ErrorCode.NotExists, `source with name "${args.name}" does not exist`, { path: argPath(call) });
      }
      if (existing.kind !== backend.kind) {
        throw new EngineError(
          ErrorCode.NotExists,
          `source with name "${args.name}" has backend type "${existing.kind}" which does not match the expected type ${backend.kind}`,
          { path: argPath(call) },
        );
      }
      const doc = updateSource(ctx.state.doc, args.name, (s) => ({
        ...s,
        ...(args.configuration === undefined ? {} : { configuration: args.configuration }),
        ...(args.customization === undefined ? {} : { customization: args.customization }),
      }));
      await ctx.commitEdit({
        doc,
        touched: [{ kind: 'source', source: args.name }],
        ...(args.configuration === undefined ? {} : { refresh: new Set([args.name]) }),
        path: argPath(call),
      });
      return { response: SUCCESS };
    },
  });
}
