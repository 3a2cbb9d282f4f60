/**
 * Mutation operations: every mutation root field of a request runs in one
 * transaction per source, in request order, so later fields see earlier
 * fields' writes and any error rolls all of them back. The statements of a
 * transaction are sent together (one round trip; see
 * the backend's connection), and a lone statement runs on its own (it
 * is atomic already), so `insert_<t>_one` is one statement and one round trip.
 */
import type * as ir from '../ir/index.ts';
import { UNKNOWN_TARGET, type BoundStatement, type CompiledMutation, type RunOptions, type SourceConnection } from '../backends/backend.ts';
import type { Catalog } from '../catalog/types.ts';
import type { Session } from '../auth/session.ts';
import { backendFor } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, isEngineError } from '../errors/engine-error.ts';
import { bindStatement } from './bind-statement.ts';
import { runTransaction } from './run-statement.ts';

/** One root field of a write step. */
export type PlannedMutationField =
  | {
      readonly kind: 'write';
      readonly alias: string;
      readonly source: string;
      readonly connection: SourceConnection;
      readonly compiled: CompiledMutation;
      /** Where v2 reports a database error of this field (Note [Mutation error paths]); null: `$`. */
      readonly errorPath: string | null;
    }
  | { readonly kind: 'static'; readonly alias: string; readonly json: string }
  /** A source's fields under its customization namespace. */
  | { readonly kind: 'namespace'; readonly alias: string; readonly fields: readonly PlannedMutationField[] };

/**
 * Note [Mutation error paths]
 * v2 reports a database error of an insert (a constraint violation, a failed
 * permission check) at the field's objects argument,
 * `$.selectionSet.insert_author.args.objects` (`args.object` for
 * `insert_<t>_one`), and of updates and deletes at `$`; clients match on it.
 * The failing statement's field is known when it fails (runWrites).
 */
function errorPathOf(f: ir.MutationRootField, selection: string): string | null {
  if (f.mutation.kind !== 'insert') return null;
  return `${selection}.args.${f.mutation.insert.output.kind === 'row' ? 'object' : 'objects'}`;
}

function planField(f: ir.RootField, catalog: Catalog, parent = '$'): PlannedMutationField {
  if (f.kind === 'static') return { kind: 'static', alias: f.alias, json: f.json };
  const selection = `${parent}.selectionSet.${f.alias}`;
  if (f.kind === 'namespace') return { kind: 'namespace', alias: f.alias, fields: f.fields.map((x) => planField(x, catalog, selection)) };
  const source = catalog.sources.get(f.source);
  if (source === undefined) throw new EngineError(ErrorCode.Unexpected, `source "${f.source}" is not available`);
  const compile = backendFor(source.kind).compile;
  if (f.kind === 'select' || f.kind === 'aggregate' || f.kind === 'connection') {
    // A tracked function exposed as a mutation: a read that runs in the transaction, in order.
    const compiled = { statements: [{ sql: compile.readField(f, source.target), output: true }], list: false };
    return { kind: 'write', alias: f.alias, source: f.source, connection: source.connection, compiled, errorPath: null };
  }
  const compiled = compile.mutation(f.mutation, source.target ?? UNKNOWN_TARGET);
  return { kind: 'write', alias: f.alias, source: f.source, connection: source.connection, compiled, errorPath: errorPathOf(f, selection) };
}

/** Compiles the root fields of a mutation operation (a plan's write step: Note [Plan steps] in plan.ts). */
export function planWrites(fields: readonly ir.RootField[], catalog: Catalog): PlannedMutationField[] {
  return fields.map((f) => planField(f, catalog));
}

type WriteField = Extract<PlannedMutationField, { kind: 'write' }>;

/** The write fields in request order, namespaces opened. */
function writesOf(fields: readonly PlannedMutationField[]): WriteField[] {
  return fields.flatMap((f) => (f.kind === 'write' ? [f] : f.kind === 'namespace' ? writesOf(f.fields) : []));
}

/** One source's transaction of a bound write step. */
export interface BoundTransaction {
  readonly connection: SourceConnection;
  /** The source's write fields, in request order. */
  readonly fields: readonly WriteField[];
  /** Their statements, in order. */
  readonly statements: readonly BoundStatement[];
}

/**
 * Binds the write fields of `fields` for one request: a transaction per
 * source, sources in order of first use. Every source is bound before any
 * runs, so a missing variable fails the request before anything is written.
 */
export function bindWrites(fields: readonly PlannedMutationField[], variables: Readonly<Record<string, unknown>>, session: Session): BoundTransaction[] {
  const writes = writesOf(fields);
  const sources: string[] = [];
  for (const f of writes) if (!sources.includes(f.source)) sources.push(f.source);
  const out: BoundTransaction[] = [];
  for (const source of sources) {
    const mine = writes.filter((f) => f.source === source);
    const first = mine[0];
    if (first === undefined) continue;
    const statements: BoundStatement[] = [];
    for (const f of mine) for (const s of f.compiled.statements) statements.push(bindStatement(s.sql, variables, session));
    out.push({ connection: first.connection, fields: mine, statements });
  }
  return out;
}

/** The field whose statements include the `index`th statement of a transaction. */
function fieldOfStatement(fields: readonly WriteField[], index: number): WriteField | undefined {
  let n = index;
  for (const f of fields) {
    if (n < f.compiled.statements.length) return f;
    n -= f.compiled.statements.length;
  }
  return undefined;
}

/** A database error of `field` at its v2 path (Note [Mutation error paths]). */
function atFieldPath(e: unknown, field: WriteField | undefined): unknown {
  if (!isEngineError(e) || field === undefined || field.errorPath === null || e.path !== '$') return e;
  return new EngineError(e.code, e.message, { path: field.errorPath, status: e.status, internal: e.internal, cause: e.cause });
}

/** Runs the transactions one after the other and returns the `data` object's JSON text of `fields`. */
export async function runWrites(fields: readonly PlannedMutationField[], transactions: readonly BoundTransaction[], opts?: RunOptions): Promise<string> {
  const values = new Map<WriteField, string>();
  for (const t of transactions) {
    let failedAt = 0;
    let texts: (string | null)[];
    try {
      texts = await runTransaction(t.connection, t.statements, opts, (i) => (failedAt = i));
    } catch (e) {
      throw atFieldPath(e, fieldOfStatement(t.fields, failedAt));
    }
    let i = 0;
    for (const f of t.fields) {
      const outputs: string[] = [];
      for (const s of f.compiled.statements) {
        const text = texts[i++] ?? null;
        if (s.output) outputs.push(text ?? 'null');
      }
      values.set(f, f.compiled.list ? `[${outputs.join(',')}]` : (outputs[0] ?? 'null'));
    }
  }
  const objectOf = (list: readonly PlannedMutationField[]): string => {
    const members = list.map((f) => {
      const value = f.kind === 'static' ? f.json : f.kind === 'namespace' ? objectOf(f.fields) : (values.get(f) ?? 'null');
      return `${JSON.stringify(f.alias)}:${value}`;
    });
    return `{${members.join(',')}}`;
  };
  return objectOf(fields);
}
