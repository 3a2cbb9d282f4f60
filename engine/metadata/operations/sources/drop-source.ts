/**
 * `pg_drop_source`: removes a source. Its tracked tables and functions are its dependents, and
 * the cross-source (`to_source`) remote relationships of other sources' tables into it:
 * without `cascade` they are reported as a `dependency-error`.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { objectName } from '../../../catalog/object-id.ts';
import type { PreparedSources } from '../../../catalog/prepared.ts';
import { sourceNaming } from '../../../catalog/source-naming.ts';
import type { JsonObject, MetadataDocument } from '../../../model/document.ts';
import { findSource, updateSource } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { dropSourceArgs } from '../../../model/schemas/args.ts';

interface DropSourceArgs {
  name: string;
  cascade?: boolean;
}

/** The `to_source` remote relationships of other sources' tables that lead into `name`. */
function crossSourceRelationshipsTo(doc: MetadataDocument, name: string, prepared: PreparedSources): string[] {
  const out: string[] = [];
  for (const other of doc.sources) {
    if (other.name === name) continue;
    const naming = sourceNaming(other, prepared);
    for (const t of other.tables) {
      for (const rel of t.remote_relationships) {
        const to = (rel['definition'] as JsonObject | undefined)?.['to_source'] as JsonObject | undefined;
        if (to !== undefined && to !== null && (to['source'] ?? 'default') === name) {
          out.push(objectName({ ref: { kind: 'remote_relationship', source: other.name, table: t.table, name: String(rel['name']) }, naming }));
        }
      }
    }
  }
  return out;
}

/** The drop-source operation. */
export const dropSource = defineOperation<DropSourceArgs>({
  mutates: true,
  schema: dropSourceArgs,
  async run(ctx, args, call) {
    const source = findSource(ctx.state.doc, args.name);
    // v2 answers a missing source at `$.args` (tests-py queries/v1/metadata/pg_add_source.yaml).
    if (source === undefined) throw new EngineError(ErrorCode.NotExists, `source with name "${args.name}" does not exist`, { path: argPath(call) });
    const naming = sourceNaming(source, ctx.state.prepared);
    const dependents = [
      ...source.tables.map((t) => objectName({ ref: { kind: 'table', source: args.name, table: t.table }, naming })),
      ...source.functions.map((f) => objectName({ ref: { kind: 'function', source: args.name, function: f.function }, naming })),
      ...crossSourceRelationshipsTo(ctx.state.doc, args.name, ctx.state.prepared),
    ];
    if (dependents.length > 0 && args.cascade !== true) {
      const list = dependents.join(', ');
      throw new EngineError(ErrorCode.DependencyError, `cannot drop due to the following dependent objects: ${list}`, {
        path: argPath(call),
      });
    }
    const doc = updateSource(ctx.state.doc, args.name, () => null);
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: args.cascade === true }, path: argPath(call) });
    return { response: SUCCESS };
  },
});
