/**
 * Runs the remote relationships of a read step.
 *
 * Note [Remote joins]
 * A table → remote schema relationship is planned into the read's SQL as
 * its join columns under hidden keys (`__engine_join_<column>`) and a null
 * at the field's place (graphql/to-ir/select.ts). After the statement ran,
 * the step's JSON is parsed once; for every join the rows at its path are
 * collected across the whole result (all parent rows of the request, lists
 * walked through), their distinct join-key tuples numbered, and ONE request
 * per remote schema asks for all of them at once, as aliased copies of the
 * remote field (`j0k0: country(code: "FR") {...} j0k1: country(code: "DE")
 * {...}`): it works for any remote field, scalar arguments included, and the
 * remote sees each distinct key once. 100 albums of 10 artists are one
 * request with 10 fields, never 100 requests (Hasura users hit the N+1 of
 * per-row calls: their issue 10301). The answers are spliced into the rows
 * by key, `__typename`s renamed back, the hidden keys removed, and the JSON
 * written again. The remote document is assembled from the plan's texts per
 * request (the keys are data): no parse, validation or introspection.
 * Joins of remote results back to tables (remote → table) and cross-source
 * `to_source` relationships are not implemented.
 * Measured with `npm run bench -- --capabilities remote-joins --seconds 5`
 * (100 albums of 20 artists, 16 connections, the shared two-core machine
 * with other test suites running): Engine 232 rps, p50 48 ms, 1.01 remote
 * requests per client request (exactly 1 for a request alone), 0.77 ms of
 * engine CPU per request; a graphql-tools stitching gateway (`batch: true`)
 * in front of Engine 36 rps, p50 437 ms, 11.2 ms of gateway CPU per request,
 * 2 remote requests for a request alone and 0.07 per request under load (its
 * batching merges delegations across concurrent client requests). An
 * earlier run at higher load: 129 against 10 rps.
 */
import type * as ir from '../ir/index.ts';
import type { ClientHeaders } from '../request-context.ts';
import type { Session } from '../auth/session.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { postGraphql, RemoteCallError, type RemoteAnswer } from '../remote/http-client.ts';
import type { RemoteSchemaInfo } from '../remote/types.ts';
import { headersFor, renameTypenames, sessionPresetValues } from './remote-step.ts';

/** The remote relationships of one read step to one remote schema: one request. */
export interface StepJoin {
  readonly remote: RemoteSchemaInfo;
  readonly joins: readonly ir.RemoteJoin[];
}

type Row = Record<string, unknown>;

/** The objects at `path` below `root` (lists walked through, nulls skipped). */
function rowsAt(root: unknown, path: readonly string[]): Row[] {
  let level: unknown[] = [root];
  for (const key of path) {
    const next: unknown[] = [];
    for (const v of level) {
      if (v === null || typeof v !== 'object') continue;
      const child = (v as Row)[key];
      if (Array.isArray(child)) next.push(...child);
      else if (child !== null && child !== undefined) next.push(child);
    }
    level = next;
  }
  return level.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v): v is Row => v !== null && typeof v === 'object');
}

/** A JSON value as a GraphQL literal of the kind the argument takes. */
function literal(v: unknown, kind: ir.JoinValueKind): string {
  if (v === null || v === undefined) return 'null';
  switch (kind) {
    case 'string':
      return JSON.stringify(typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));
    case 'int':
    case 'float':
      return String(typeof v === 'number' ? v : Number(v));
    case 'boolean':
      return String(v === true || v === 'true');
    case 'enum':
      return typeof v === 'string' && /^[_A-Za-z][_0-9A-Za-z]*$/.test(v) ? v : JSON.stringify(v);
    case 'raw':
      if (Array.isArray(v)) return `[${v.map((x) => literal(x, 'raw')).join(', ')}]`;
      if (typeof v === 'object')
        return `{${Object.entries(v as Row)
          .map(([k, x]) => `${k}: ${literal(x, 'raw')}`)
          .join(', ')}}`;
      return typeof v === 'string' ? JSON.stringify(v) : String(v);
  }
}

/** Arguments with `$column` replaced by the row's join values. */
function substitute(v: unknown, key: ReadonlyMap<string, unknown>): unknown {
  if (typeof v === 'string' && v.startsWith('$') && key.has(v.slice(1))) return key.get(v.slice(1));
  if (Array.isArray(v)) return v.map((x) => substitute(x, key));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v as Row).map(([k, x]) => [k, substitute(x, key)]));
  return v;
}

/** The remote field path for one key: `f1(args) { f2(args) <selection> }`. */
function fieldText(join: ir.RemoteJoin, key: ReadonlyMap<string, unknown>): string {
  let text = '';
  for (let i = join.steps.length - 1; i >= 0; i--) {
    const step = join.steps[i] as ir.RemoteJoinStep;
    const args = Object.entries(step.arguments).map(([a, v]) => `${a}: ${literal(substitute(v, key), step.kinds[a] ?? 'raw')}`);
    const inner = i === join.steps.length - 1 ? join.selection.text : ` { ${text} }`;
    text = `${step.field}${args.length === 0 ? '' : `(${args.join(', ')})`}${inner}`;
  }
  return text;
}

/** The joined field's value inside one answer (the path's inner fields are unaliased). */
function leafOf(value: unknown, join: ir.RemoteJoin): unknown {
  let v = value;
  for (const step of join.steps.slice(1)) {
    if (v === null || typeof v !== 'object') return null;
    v = (v as Row)[step.field] ?? null;
  }
  return v;
}

/** Runs the joins of one read step on its JSON text; the text with every joined field filled. */
export async function runJoins(
  text: string,
  joins: readonly StepJoin[],
  variables: Readonly<Record<string, unknown>>,
  session: Session,
  clientHeaders?: ClientHeaders,
): Promise<string> {
  const root = JSON.parse(text) as unknown;
  const hidden = new Set<string>();
  await Promise.all(joins.map((j) => runStepJoin(root, j, variables, session, clientHeaders, hidden)));
  return JSON.stringify(root, (k, v: unknown) => (hidden.has(k) ? undefined : v));
}

async function runStepJoin(
  root: unknown,
  sj: StepJoin,
  variables: Readonly<Record<string, unknown>>,
  session: Session,
  clientHeaders: ClientHeaders | undefined,
  hidden: Set<string>,
): Promise<void> {
  const fields: string[] = [];
  const defs = new Map<string, string>();
  const presets: ir.SessionPreset[] = [];
  const splices: Array<() => void> = [];
  let data: Record<string, unknown> = {};
  sj.joins.forEach((join, j) => {
    for (const [, k] of join.columns) hidden.add(k);
    const rows = rowsAt(root, join.path);
    const keys = new Map<string, number>();
    const rowKeys: Array<number | null> = [];
    for (const row of rows) {
      const values = join.columns.map(([, k]) => row[k]);
      if (values.some((v) => v === null || v === undefined)) {
        rowKeys.push(null);
        continue;
      }
      const id = JSON.stringify(values);
      let n = keys.get(id);
      if (n === undefined) {
        n = keys.size;
        keys.set(id, n);
        const byColumn = new Map(join.columns.map(([c], i) => [c, values[i]] as const));
        fields.push(`j${j}k${n}: ${fieldText(join, byColumn)}`);
      }
      rowKeys.push(n);
    }
    if (keys.size > 0) {
      for (const [v, t] of join.selection.variables) defs.set(v, t);
      presets.push(...join.selection.sessionPresets);
    }
    splices.push(() => {
      rows.forEach((row, i) => {
        const n = rowKeys[i];
        const value = n === null || n === undefined ? null : leafOf(data[`j${j}k${n}`] ?? null, join);
        if (value !== null && join.selection.typenames !== null) renameTypenames(value, join.selection.typenames, sj.remote.names);
        row[join.alias] = value;
      });
    });
  });
  if (fields.length > 0) {
    const vars = [...defs].map(([v, t]) => `$${v}: ${t}`);
    const query = `query${vars.length === 0 ? '' : ` (${vars.join(', ')})`} { ${fields.join(' ')} }`;
    const sent: Record<string, unknown> = {};
    for (const v of defs.keys()) if (variables[v] !== undefined) sent[v] = variables[v];
    Object.assign(sent, sessionPresetValues(presets, session));
    let answer: RemoteAnswer;
    try {
      answer = await postGraphql({
        url: sj.remote.endpoint.url,
        headers: headersFor(sj.remote, session, clientHeaders),
        body: JSON.stringify({ query, variables: sent }),
        timeoutMs: sj.remote.endpoint.timeoutMs,
      });
    } catch (e) {
      const message = e instanceof RemoteCallError ? e.message : 'the remote schema could not be reached';
      throw new EngineError(ErrorCode.RemoteSchemaError, message, { path: '$', internal: { remote_schema: sj.remote.name } });
    }
    if (answer.errors !== undefined && answer.errors.length > 0) {
      const first = answer.errors[0]?.['message'];
      throw new EngineError(ErrorCode.RemoteSchemaError, typeof first === 'string' ? first : 'the remote schema answered an error', {
        path: '$',
        internal: { remote_schema: sj.remote.name, errors: answer.errors },
      });
    }
    data = answer.data ?? {};
  }
  for (const s of splices) s();
}
