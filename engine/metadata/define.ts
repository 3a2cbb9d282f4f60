/**
 * Helpers every operation module uses: typed arg validation, and the common
 * preconditions (the source exists, the table is tracked or exists).
 */
import type { IntrospectedTable } from '../backends/introspection.ts';
import type { QualifiedName } from '../catalog/types.ts';
import { tableKey } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { didYouMean } from '../errors/suggest.ts';
import type { SourceMetadata, TableMetadata } from '../model/document.ts';
import { findSource, findTable } from './edit.ts';
import { argPath, type CallResult, type MetadataCall, type OnSource, type Operation, type RunContext, type SourceOperation } from './operation.ts';
import { assertValid, type JsonSchema } from '../model/schemas/validate.ts';

/** What an operation module defines: its args schema and what it does with valid args. */
export interface OperationDefinition<A> {
  readonly mutates: boolean;
  readonly schema: JsonSchema;
  /** Rewrites legacy (`/v1/query`) arg shapes into the current one before validation. */
  readonly legacyArgs?: (raw: unknown, call: MetadataCall) => unknown;
  run(ctx: RunContext, args: A, call: MetadataCall): Promise<CallResult>;
}

/** What a backend operation module defines: as {@link OperationDefinition}, run with its source's {@link OnSource}. */
export interface SourceOperationDefinition<A> {
  readonly mutates: boolean;
  readonly schema: JsonSchema;
  readonly legacyArgs?: (raw: unknown, call: MetadataCall) => unknown;
  run(ctx: RunContext, args: A, call: MetadataCall, on: OnSource): Promise<CallResult>;
}

/** Makes a {@link SourceOperation} that validates its args before running. */
export function defineSourceOperation<A>(def: SourceOperationDefinition<A>): SourceOperation {
  return {
    mutates: def.mutates,
    async run(ctx, call, on) {
      const raw = call.legacy && def.legacyArgs !== undefined ? def.legacyArgs(call.args ?? {}, call) : (call.args ?? {});
      const args = assertValid<A>(def.schema, raw, argPath(call));
      return await def.run(ctx, args, call, on);
    },
  };
}

/** Makes an {@link Operation} that validates its args before running. */
export function defineOperation<A>(def: OperationDefinition<A>): Operation {
  return {
    mutates: def.mutates,
    async run(ctx, call) {
      const raw = call.legacy && def.legacyArgs !== undefined ? def.legacyArgs(call.args ?? {}, call) : (call.args ?? {});
      const args = assertValid<A>(def.schema, raw, argPath(call));
      return await def.run(ctx, args, call);
    },
  };
}

/** The source `name`; `not-exists` when there is none. */
export function requireSource(ctx: RunContext, name: string, call: MetadataCall, key = 'source'): SourceMetadata {
  const s = findSource(ctx.state.doc, name);
  if (s === undefined) {
    throw new EngineError(ErrorCode.NotExists, `source with name "${name}" does not exist`, { path: argPath(call, key) });
  }
  return s;
}

/** The tracked table; `not-exists` when it is not tracked. */
export function requireTrackedTable(ctx: RunContext, source: string, table: QualifiedName, call: MetadataCall, on: OnSource): TableMetadata {
  requireSource(ctx, source, call);
  const t = findTable(ctx.state.doc, source, table);
  if (t === undefined) {
    throw new EngineError(ErrorCode.NotExists, `table "${on.naming.format(table)}" does not exist in source: ${source}`, {
      path: argPath(call, 'table'),
    });
  }
  return t;
}

/**
 * The table as the database has it. `not-exists` when the source's database
 * has no such relation; `invalid-configuration` when the source cannot be reached.
 */
export function requireDatabaseTable(ctx: RunContext, source: string, table: QualifiedName, call: MetadataCall, on: OnSource): IntrospectedTable {
  const p = ctx.state.prepared.get(source);
  if (p === undefined || !p.ok) {
    const why = p === undefined ? 'it is not a postgres source' : p.reason;
    throw new EngineError(ErrorCode.InvalidConfiguration, `source "${source}" is inconsistent: ${why}`, {
      path: argPath(call, 'source'),
    });
  }
  const t = p.introspection.tables.get(tableKey(table));
  if (t === undefined) {
    const near = didYouMean(
      on.naming.format(table),
      [...p.introspection.tables.values()].map((x) => on.naming.format(x.name)),
    );
    throw new EngineError(ErrorCode.NotExists, `no such table/view exists in source: "${on.naming.format(table)}"${near}`, {
      path: argPath(call, 'table'),
    });
  }
  return t;
}
