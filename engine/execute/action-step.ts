/**
 * Running an action step (Note [Plan steps]): a synchronous call, an
 * asynchronous submission, or an asynchronous result read; the answer is
 * the step's JSON object text `{"<alias>": …}`.
 *
 * Note [Action relationships]: the relationship fields of an action's output
 * (custom-type relationships to tables) are read with ONE statement per
 * source for the whole response, compiled with the plan: each relationship
 * is a select of the target table with the caller's select permission folded
 * in, filtered by `column IN (keys)` where the keys are the distinct values
 * of the mapped output fields, bound as parameters. Rows are matched back to
 * output objects by their key columns. An array relationship reads the
 * distinct key tuples found in the target table, each with its rows as a
 * nested array relationship on the key columns, so its `limit`, `offset`
 * and the permission's limit apply per object inside the statement (before,
 * every matching row was read and cut in JS; the golden case
 * actions/array-relationship-per-object shows the SQL). A `<rel>_aggregate`
 * field (v2 offers one per array relationship) reads the same key tuples,
 * each with its aggregate; an object whose keys the table lacks gets the
 * aggregate of no rows, made here (emptyAggregate).
 */
import type * as ir from '../ir/index.ts';
import { ACTION_ROWS_ALIAS } from '../ir/root.ts';
import type { ActionRuntime } from '../actions/runtime.ts';
import { callHandler } from '../actions/handler.ts';
import { forwardedClientHeaders } from '../auth/forwarded-headers.ts';
import { checkOutput, shapeOutput, type RelationshipSlot } from '../actions/output.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { RunOptions } from '../backends/backend.ts';
import { backendFor } from '../backends/registry.ts';
import type { BoundStatement, SourceConnection } from '../backends/backend.ts';
import { bindStatement } from './bind-statement.ts';
import type { BoundActionStep } from './bind.ts';

/** What action steps need from the engine: the async store, the client's headers (remote steps use these too: run.ts StepServices). */
export interface ActionServices {
  readonly runtime?: ActionRuntime;
  readonly clientHeaders?: Readonly<Record<string, string | string[] | undefined>>;
}

async function runStatement(conn: SourceConnection, stmt: BoundStatement, opts: RunOptions | undefined): Promise<string | null> {
  try {
    return await conn.queryJsonText(stmt, opts);
  } catch (e) {
    throw backendFor(conn.kind).toEngineError(e, stmt);
  }
}

function objectText(alias: string, value: unknown): string {
  return `{${JSON.stringify(alias)}:${JSON.stringify(value ?? null)}}`;
}

function requireRuntime(services: ActionServices): ActionRuntime {
  if (services.runtime === undefined)
    throw new EngineError(ErrorCode.NotSupported, 'asynchronous actions need the action store, which this engine does not run', { status: 200 });
  return services.runtime;
}

/** Runs one bound action step. */
export async function runActionStep(s: BoundActionStep, services: ActionServices, opts?: RunOptions): Promise<string> {
  const f = s.step.field;
  const info = s.step.action;
  switch (f.mode) {
    case 'async-submit': {
      const id = await requireRuntime(services).submit(
        info.name,
        s.input,
        s.session.variables,
        f.requestQuery,
        // Only what the worker will forward is stored: never the admin secret or session headers (Note [Forwarded client headers]).
        info.forwardClientHeaders ? forwardedClientHeaders(services.clientHeaders) : {},
      );
      return objectText(f.alias, id);
    }
    case 'async-result': {
      const id = (s.input as Record<string, unknown>)['id'];
      const row = await requireRuntime(services).result(info.name, id, s.session.variables);
      if (row === null) return objectText(f.alias, null);
      const result = {
        id: row.id,
        created_at: row.createdAt,
        output: row.status === 'completed' ? row.output : null,
        errors: row.status === 'error' ? row.errors : null,
      };
      return objectText(f.alias, await shapeWithRelationships(result, s, opts));
    }
    case 'sync': {
      const output = await callHandler(info, {
        input: s.input,
        sessionVariables: s.session.variables,
        requestQuery: f.requestQuery,
        ...(services.clientHeaders === undefined ? {} : { clientHeaders: services.clientHeaders }),
      });
      checkOutput(info.name, output, info.outputType, s.step.types);
      return objectText(f.alias, await shapeWithRelationships(output, s, opts));
    }
  }
}

/** The output cut to the selection, with relationship fields read (Note [Action relationships]). */
async function shapeWithRelationships(value: unknown, s: BoundActionStep, opts: RunOptions | undefined): Promise<unknown> {
  const f = s.step.field;
  const slots: RelationshipSlot[][] = [];
  const shaped = shapeOutput(value, f.selection, slots);
  if (f.relationships.length === 0) return shaped;
  await Promise.all(
    s.step.reads.map(async (read) => {
      const vars: Record<string, unknown> = { ...s.variables };
      let any = false;
      for (const i of read.indexes) {
        const rel = f.relationships[i] as ir.ActionRelationshipRead;
        rel.fieldMapping.forEach(([field], k) => {
          const keys = new Set<string>();
          for (const slot of slots[i] ?? []) {
            const v = slot.parent[field];
            if (v !== null && v !== undefined) keys.add(typeof v === 'string' ? v : JSON.stringify(v));
          }
          if (keys.size > 0) any = true;
          vars[rel.keyVariables[k] as string] = [...keys];
        });
      }
      if (!any) {
        for (const i of read.indexes) fill(f.relationships[i] as ir.ActionRelationshipRead, slots[i] ?? [], []);
        return;
      }
      const text = await runStatement(read.connection, bindStatement(read.sql, vars, s.session), opts);
      const rows = (text === null ? {} : JSON.parse(text)) as Record<string, Array<Record<string, unknown>>>;
      for (const i of read.indexes) {
        const rel = f.relationships[i] as ir.ActionRelationshipRead;
        const alias = rel.read.alias;
        fill(rel, slots[i] ?? [], rows[alias] ?? []);
      }
    }),
  );
  return shaped;
}

/** The key of an output object's join values, as the read's `__key<i>` text columns spell it. */
function parentKey(rel: ir.ActionRelationshipRead, parent: Record<string, unknown>): string {
  return JSON.stringify(
    rel.fieldMapping.map(([field]) => {
      const v = parent[field];
      return v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v);
    }),
  );
}

/**
 * The aggregate of no rows, for an object whose keys the target table lacks
 * (the read only has the key tuples it found): counts 0, every other
 * aggregate null, `nodes` empty, as the database answers for an empty set.
 */
function emptyAggregate(rel: ir.ActionRelationshipRead): Record<string, unknown> {
  const field = rel.read.kind === 'select' ? rel.read.select.fields.find((x) => x.alias === ACTION_ROWS_ALIAS) : undefined;
  const out: Record<string, unknown> = {};
  if (field?.kind !== 'array-aggregate') return out;
  for (const f of field.select.fields) {
    if (f.kind === 'typename') out[f.alias] = f.typename;
    else if (f.kind === 'nodes') out[f.alias] = [];
    else {
      const ops: Record<string, unknown> = {};
      for (const op of f.fields) {
        if (op.kind === 'typename') ops[op.alias] = op.typename;
        else if (op.kind === 'count') ops[op.alias] = 0;
        else ops[op.alias] = Object.fromEntries(op.columns.map((c) => [c.alias, c.kind === 'typename' ? c.typename : null]));
      }
      out[f.alias] = ops;
    }
  }
  return out;
}

/** Puts each object's rows in its slot, matched by key columns. */
function fill(rel: ir.ActionRelationshipRead, slots: readonly RelationshipSlot[], rows: ReadonlyArray<Record<string, unknown>>): void {
  const byKey = new Map<string, unknown>();
  if (rel.type !== 'object') {
    // One row per key tuple, its rows (limited per tuple by the statement) or their aggregate under ACTION_ROWS_ALIAS.
    for (const row of rows) byKey.set(JSON.stringify(rel.keyAliases.map((a) => row[a])), row[ACTION_ROWS_ALIAS]);
    const none = (): unknown => (rel.type === 'array' ? [] : emptyAggregate(rel));
    for (const slot of slots) slot.target[slot.alias] = byKey.get(parentKey(rel, slot.parent)) ?? none();
    return;
  }
  for (const row of rows) {
    const key = JSON.stringify(rel.keyAliases.map((a) => row[a]));
    if (byKey.has(key)) continue;
    const clean: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) if (!rel.keyAliases.includes(k)) clean[k] = v;
    byKey.set(key, clean);
  }
  for (const slot of slots) slot.target[slot.alias] = byKey.get(parentKey(rel, slot.parent)) ?? null;
}
