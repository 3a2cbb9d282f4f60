/**
 * Runs the joins of a read or remote step: remote relationships of tables,
 * and relationships of remote types to tables and to other remotes.
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
 * A remote type's relationships (ir.TableJoin, ir.RemoteJoin from
 * graphql/to-ir/remote.ts) are joins of the remote step the same way: the
 * remote query selects the join fields under the same hidden keys; a join
 * to a table is a select of it with the caller's permission filtered by
 * `column IN (keys)`, and all table joins of one response level on one
 * source are ONE statement (`planJoins` compiles their reads into one
 * `SELECT json_build_object(...)`), rows matched back by their key columns,
 * an array's limit and offset applied per parent. A table's `to_source`
 * relationship to a table of another source (cross-source join) is the
 * same ir.TableJoin, its parent rows carrying their join columns under the
 * hidden keys as for a remote relationship (graphql/to-ir/select.ts). Keys
 * are compared, bound and written into remote arguments as values of their
 * type, never as raw text: Note [Join keys by type] in join-keys.ts. Joins
 * nest: each join carries the joins of its values (a table's rows selecting
 * remote relationships, a remote's answer selecting type relationships),
 * run on what it filled once the level is spliced, so every response level
 * costs one request per remote schema and one statement per source,
 * whatever the row count.
 * Measured with `npm run bench -- --capabilities remote-joins --seconds 5`
 * (100 albums of 20 artists, 16 connections, the shared two-core machine
 * with other test suites running), 2026-11-24 18:36: Engine 743 rps, p50
 * 19 ms, 1.00 remote request per client request, 0.59 ms of engine CPU per
 * request; a graphql-tools stitching gateway (`batch: true`) in front of
 * Engine 99 rps, p50 149 ms, 9.2 ms of gateway CPU per request (its
 * batching merges delegations across concurrent client requests: 0.06
 * remote requests per request under load, 1 for a request alone). The
 * other way, the remote's 20 artists joined to their 100 albums by a
 * `to_source` type relationship (one remote request and one statement per
 * client request): 1265 rps, p50 10 ms, 0.47 ms of engine CPU per request.
 * Earlier runs of the first row at other loads: 232 against 36 rps, 129
 * against 10 rps. Cross-source: 100 albums of one database joined to their
 * stats in another by a table's `to_source` relationship (same command,
 * 2026-11-24 21:07, both databases behind statement-counting proxies):
 * Engine 1158 rps, p50 10 ms, 1 + 1 statements per request; the same two
 * queries joined by the client 579 rps, p50 22 ms (two round trips); a
 * graphql-tools stitching gateway over two engines (batchDelegateToSchema)
 * 301 rps, p50 44 ms, 2.4 ms of gateway CPU per request (its executors
 * merge identical in-flight requests: 0.06 statements per request under
 * load, 1 + 1 for a request alone).
 */
import type * as ir from '../ir/index.ts';
import { RemoteLiteral } from '../ir/remote.ts';
import type { ClientHeaders } from '../request-context.ts';
import type { Session } from '../auth/session.ts';
import type { BoundStatement, RunOptions, SourceConnection } from '../backends/backend.ts';
import type { CompiledSql } from '../backends/sql/fragment.ts';
import { backendFor } from '../backends/registry.ts';
import type { Catalog } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { postGraphql, RemoteCallError, type RemoteAnswer } from '../remote/http-client.ts';
import type { RemoteSchemaInfo } from '../remote/types.ts';
import { bindStatement } from './bind-statement.ts';
import { canonicalInteger, canonicalKey, canonicalNumber, canonicalRowKey } from './join-keys.ts';
import { headersFor, renameTypenames, sessionPresetValues } from './remote-step.ts';

/** A join with the joins to run on its values, planned. */
export interface PlannedJoin<J extends ir.Join> {
  readonly join: J;
  readonly nested: readonly StepJoin[];
}

/**
 * The joins of one response level to one place: a remote schema (one
 * request) or a source (one statement holding every table join's read).
 */
export type StepJoin =
  | { readonly kind: 'remote'; readonly remote: RemoteSchemaInfo; readonly joins: readonly PlannedJoin<ir.RemoteJoin>[] }
  | {
      readonly kind: 'table';
      readonly source: string;
      readonly connection: SourceConnection;
      readonly sql: CompiledSql;
      readonly joins: readonly PlannedJoin<ir.TableJoin>[];
    };

/** Groups `joins` of one level by remote schema and by source, compiling each source's reads into one statement, and their nested joins likewise. */
export function planJoins(joins: readonly ir.Join[], catalog: Catalog): StepJoin[] {
  const remotes = new Map<string, PlannedJoin<ir.RemoteJoin>[]>();
  const sources = new Map<string, PlannedJoin<ir.TableJoin>[]>();
  for (const j of joins) {
    const nested = planJoins(j.nested, catalog);
    if (j.kind === 'remote') remotes.set(j.remote, [...(remotes.get(j.remote) ?? []), { join: j, nested }]);
    else sources.set(j.source, [...(sources.get(j.source) ?? []), { join: j, nested }]);
  }
  const out: StepJoin[] = [];
  for (const [name, list] of remotes) {
    const remote = catalog.remoteSchemas?.get(name);
    if (remote === undefined) throw new EngineError(ErrorCode.Unexpected, `remote schema "${name}" is not available`);
    out.push({ kind: 'remote', remote, joins: list });
  }
  for (const [name, list] of sources) {
    const source = catalog.sources.get(name);
    if (source === undefined) throw new EngineError(ErrorCode.Unexpected, `source "${name}" is not available`);
    const sql = backendFor(source.kind).compile.query(
      list.map((p) => p.join.read),
      source.target,
    );
    out.push({ kind: 'table', source: name, connection: source.connection, sql, joins: list });
  }
  return out;
}

/** Every statement of `joins` and their nested joins (explain, planStatements). */
export function joinStatements(joins: readonly StepJoin[]): CompiledSql[] {
  return joins.flatMap((sj) => [...(sj.kind === 'table' ? [sj.sql] : []), ...sj.joins.flatMap((p) => joinStatements(p.nested))]);
}

/** What running joins needs from the request. */
interface JoinRequest {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly session: Session;
  readonly clientHeaders: ClientHeaders | undefined;
  readonly opts: RunOptions | undefined;
  /** Hidden keys met, removed when the result is written. */
  readonly hidden: Set<string>;
}

type Row = Record<string, unknown>;

/** The objects in `v`, lists flattened, nulls skipped. */
function objectsIn(v: unknown, out: Row[]): void {
  if (Array.isArray(v)) for (const x of v) objectsIn(x, out);
  else if (v !== null && typeof v === 'object') out.push(v as Row);
}

/** The objects at `path` below the objects of `roots` (lists walked through, nulls skipped). */
function rowsAt(roots: readonly unknown[], path: readonly string[]): Row[] {
  let level: Row[] = [];
  objectsIn(roots, level);
  for (const key of path) {
    const next: Row[] = [];
    for (const row of level) objectsIn(row[key], next);
    level = next;
  }
  return level;
}

/** Stands for a join key in the document shape explain shows (the keys are data: explain-plan.ts). */
class KeyPlaceholder {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * A JSON value as a GraphQL literal of the kind the argument takes; null
 * when it is no value of that kind (a fraction for an `Int`): the key then
 * matches nothing (Note [Join keys by type] in join-keys.ts).
 */
function literal(v: unknown, kind: ir.JoinValueKind): string | null {
  if (v instanceof RemoteLiteral) return v.text;
  if (v === null || v === undefined) return 'null';
  if (v instanceof KeyPlaceholder) return v.text;
  switch (kind) {
    case 'string':
      return JSON.stringify(typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));
    case 'int':
      return canonicalInteger(v, 31n);
    case 'float':
      return canonicalNumber(v);
    case 'boolean':
      return v === true || v === 'true' ? 'true' : v === false || v === 'false' ? 'false' : null;
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
  if (v instanceof RemoteLiteral) return v;
  if (typeof v === 'string' && v.startsWith('$') && key.has(v.slice(1))) return key.get(v.slice(1));
  if (Array.isArray(v)) return v.map((x) => substitute(x, key));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v as Row).map(([k, x]) => [k, substitute(x, key)]));
  return v;
}

/** The remote field path for one key: `f1(args) { f2(args) <selection> }`; null when a key is no value of its argument's type. */
function fieldText(join: ir.RemoteJoin, key: ReadonlyMap<string, unknown>): string | null {
  let text = '';
  for (let i = join.steps.length - 1; i >= 0; i--) {
    const step = join.steps[i] as ir.RemoteJoinStep;
    const args: string[] = [];
    for (const [a, v] of Object.entries(step.arguments)) {
      const written = literal(substitute(v, key), step.kinds[a] ?? 'raw');
      if (written === null) return null;
      args.push(`${a}: ${written}`);
    }
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

const KIND_NAMES: Readonly<Record<ir.JoinValueKind, string>> = { string: 'String', int: 'Int', float: 'Float', boolean: 'Boolean', enum: 'enum', raw: 'value' };

/**
 * The document one remote join request sends, keys as typed placeholders
 * (`<artist_id: Int>`) and each field's alias as `j<join>k<n>`: the request
 * holds one aliased copy of it per distinct key.
 */
export function remoteJoinDocument(joins: readonly ir.RemoteJoin[]): string {
  const defs = new Map<string, string>();
  const fields = joins.map((join, j) => {
    for (const [v, t] of join.selection.variables) defs.set(v, t);
    const kinds = new Map<string, ir.JoinValueKind>();
    for (const step of join.steps)
      for (const [a, v] of Object.entries(step.arguments)) if (typeof v === 'string' && v.startsWith('$')) kinds.set(v.slice(1), step.kinds[a] ?? 'raw');
    const key = new Map(join.columns.map(([c]) => [c, new KeyPlaceholder(`<${c}: ${KIND_NAMES[kinds.get(c) ?? 'raw']}>`)] as const));
    return `j${j}k<n>: ${fieldText(join, key) ?? ''}`;
  });
  const vars = [...defs].map(([v, t]) => `$${v}: ${t}`);
  return `query${vars.length === 0 ? '' : ` (${vars.join(', ')})`} { ${fields.join(' ')} }`;
}

/** Runs the joins of one step on its JSON text; the text with every joined field filled and the hidden keys gone. */
export async function runJoins(
  text: string,
  joins: readonly StepJoin[],
  variables: Readonly<Record<string, unknown>>,
  session: Session,
  clientHeaders?: ClientHeaders,
  opts?: RunOptions,
): Promise<string> {
  const root = JSON.parse(text) as unknown;
  const req: JoinRequest = { variables, session, clientHeaders, opts, hidden: new Set() };
  await runLevel([root], joins, req);
  const hidden = req.hidden;
  return JSON.stringify(root, (k, v: unknown) => (hidden.has(k) ? undefined : v));
}

/** Runs one level's joins side by side, then each join's nested joins on the values it filled. */
async function runLevel(roots: readonly unknown[], joins: readonly StepJoin[], req: JoinRequest): Promise<void> {
  await Promise.all(joins.map((sj) => (sj.kind === 'remote' ? runRemoteJoins(roots, sj, req) : runTableJoins(roots, sj, req))));
}

/** The join-key values of `row` (undefined: the row is not one the join is on, as in a union's other member). */
function keyValues(row: Row, keys: readonly string[]): unknown[] | undefined {
  const values = keys.map((k) => row[k]);
  return values.every((v) => v === undefined) ? undefined : values;
}

async function runRemoteJoins(roots: readonly unknown[], sj: Extract<StepJoin, { kind: 'remote' }>, req: JoinRequest): Promise<void> {
  const fields: string[] = [];
  const defs = new Map<string, string>();
  const presets: ir.SessionPreset[] = [];
  const splices: Array<() => unknown[]> = [];
  let data: Record<string, unknown> = {};
  sj.joins.forEach(({ join }, j) => {
    for (const [, k] of join.columns) req.hidden.add(k);
    const rows = rowsAt(roots, join.path);
    const keys = new Map<string, number>();
    const rowKeys: Array<number | null | undefined> = [];
    for (const row of rows) {
      const values = keyValues(
        row,
        join.columns.map(([, k]) => k),
      );
      if (values === undefined) {
        rowKeys.push(undefined);
        continue;
      }
      if (values.some((v) => v === null || v === undefined)) {
        rowKeys.push(null);
        continue;
      }
      // Keys are told apart by the field text written for them: by value as the arguments' types read them.
      const text = fieldText(join, new Map(join.columns.map(([c], i) => [c, values[i]] as const)));
      if (text === null) {
        rowKeys.push(null);
        continue;
      }
      let n = keys.get(text);
      if (n === undefined) {
        n = keys.size;
        keys.set(text, n);
        fields.push(`j${j}k${n}: ${text}`);
      }
      rowKeys.push(n);
    }
    if (keys.size > 0) {
      for (const [v, t] of join.selection.variables) defs.set(v, t);
      presets.push(...join.selection.sessionPresets);
    }
    splices.push(() => {
      const filled: unknown[] = [];
      rows.forEach((row, i) => {
        const n = rowKeys[i];
        if (n === undefined) return;
        const value = n === null ? null : leafOf(data[`j${j}k${n}`] ?? null, join);
        if (value !== null && join.selection.typenames !== null) renameTypenames(value, join.selection.typenames, sj.remote.names);
        row[join.alias] = value;
        if (value !== null) filled.push(value);
      });
      return filled;
    });
  });
  if (fields.length > 0) {
    const vars = [...defs].map(([v, t]) => `$${v}: ${t}`);
    const query = `query${vars.length === 0 ? '' : ` (${vars.join(', ')})`} { ${fields.join(' ')} }`;
    const sent: Record<string, unknown> = {};
    for (const v of defs.keys()) if (req.variables[v] !== undefined) sent[v] = req.variables[v];
    Object.assign(sent, sessionPresetValues(presets, req.session));
    let answer: RemoteAnswer;
    try {
      answer = await postGraphql({
        url: sj.remote.endpoint.url,
        headers: headersFor(sj.remote, req.session, req.clientHeaders),
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
  const filled = splices.map((s) => s());
  await Promise.all(sj.joins.map((p, j) => (p.nested.length === 0 ? undefined : runLevel(filled[j] ?? [], p.nested, req))));
}

function rowCount(p: ir.ParamSource | null, variables: Readonly<Record<string, unknown>>): number | null {
  if (p === null) return null;
  if (p.kind === 'const') return typeof p.value === 'number' ? p.value : Number(p.value);
  if (p.kind === 'variable') {
    const v = variables[p.name];
    return v === null || v === undefined ? null : Number(v);
  }
  return null;
}

/** The table joins of one level on one source: ONE statement for the keys of every parent object of every join. */
async function runTableJoins(roots: readonly unknown[], sj: Extract<StepJoin, { kind: 'table' }>, req: JoinRequest): Promise<void> {
  const vars: Record<string, unknown> = { ...req.variables };
  let any = false;
  const parents = sj.joins.map(({ join }) => {
    for (const [k] of join.columns) req.hidden.add(k);
    const rows = rowsAt(roots, join.path).filter(
      (r) =>
        keyValues(
          r,
          join.columns.map(([k]) => k),
        ) !== undefined,
    );
    join.columns.forEach(([k], i) => {
      const keys = new Set<string>();
      const type = join.keyTypes[i] ?? 'text';
      for (const row of rows) {
        const key = canonicalKey(row[k], type);
        if (key !== null) keys.add(key);
      }
      if (keys.size > 0) any = true;
      vars[join.keyVariables[i] as string] = [...keys];
    });
    return rows;
  });
  let result: Record<string, Row[]> = {};
  if (any) {
    const stmt: BoundStatement = bindStatement(sj.sql, vars, req.session);
    let text: string | null;
    try {
      text = await sj.connection.queryJsonText(stmt, req.opts);
    } catch (e) {
      throw backendFor(sj.connection.kind).toEngineError(e, stmt);
    }
    result = (text === null ? {} : JSON.parse(text)) as Record<string, Row[]>;
  }
  const filled = sj.joins.map(({ join }, j) => fillRows(join, parents[j] ?? [], result[join.read.alias] ?? [], req.variables));
  await Promise.all(sj.joins.map((p, j) => (p.nested.length === 0 ? undefined : runLevel(filled[j] ?? [], p.nested, req))));
}

/** Puts in each parent object its rows, matched by key; answers the rows put. */
function fillRows(join: ir.TableJoin, parents: readonly Row[], rows: readonly Row[], variables: Readonly<Record<string, unknown>>): Row[] {
  const byKey = new Map<string, Row[]>();
  for (const row of rows) {
    const key = JSON.stringify(join.keyAliases.map((a, i) => canonicalRowKey(row[a], join.keyTypes[i] ?? 'text')));
    const clean: Row = {};
    for (const [k, v] of Object.entries(row)) if (!join.keyAliases.includes(k)) clean[k] = v;
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [clean]);
    else list.push(clean);
  }
  const limit = rowCount(join.limit, variables);
  const offset = rowCount(join.offset, variables) ?? 0;
  const out: Row[] = [];
  for (const parent of parents) {
    const values = join.columns.map(([k], i) => canonicalKey(parent[k], join.keyTypes[i] ?? 'text'));
    const matched = values.some((v) => v === null) ? [] : (byKey.get(JSON.stringify(values)) ?? []);
    if (join.type === 'object') {
      parent[join.alias] = matched[0] ?? null;
      if (matched[0] !== undefined) out.push(matched[0]);
      continue;
    }
    let list = matched.slice(offset);
    if (limit !== null) list = list.slice(0, limit);
    if (join.limitCap !== null) list = list.slice(0, join.limitCap);
    parent[join.alias] = list;
    out.push(...list);
  }
  return out;
}
