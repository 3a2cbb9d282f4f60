/**
 * `/v1/graphql/explain` after the request steps up to `plan` (Note [Request
 * steps]): each database root field's statement, its bound values and the
 * database's plan, rendered from Postgres `EXPLAIN (FORMAT JSON)` output as
 * the text lines users read; a remote schema's root field's request; and
 * the statements and remote requests of their joins (Note [Explaining joins]).
 */
import type { Session } from '../auth/session.ts';
import { backendFor } from '../backends/registry.ts';
import type { Catalog } from '../catalog/types.ts';
import { bindStatement } from './bind-statement.ts';
import type * as ir from '../ir/index.ts';
import type { Plan, PlanStep, RemoteStep } from './plan.ts';
import { planJoins, remoteJoinDocument, type PlannedJoin, type StepJoin } from './remote-join.ts';
import { bindRemote } from './remote-step.ts';
import { runStatement } from './run-statement.ts';

interface PlanNode {
  readonly [key: string]: unknown;
}

function line(node: PlanNode): string {
  const type = String(node['Node Type'] ?? 'Node');
  const strategy = typeof node['Strategy'] === 'string' && type === 'Aggregate' ? `${String(node['Strategy'])} ` : '';
  const index = typeof node['Index Name'] === 'string' ? ` using ${String(node['Index Name'])}` : '';
  const rel = typeof node['Relation Name'] === 'string' ? ` on ${String(node['Relation Name'])}` : '';
  const alias = typeof node['Alias'] === 'string' && node['Alias'] !== node['Relation Name'] ? ` ${String(node['Alias'])}` : '';
  const cost = `(cost=${String(node['Startup Cost'])}..${String(node['Total Cost'])} rows=${String(node['Plan Rows'])} width=${String(node['Plan Width'])})`;
  const name = type === 'Aggregate' && strategy === 'Plain ' ? 'Aggregate' : `${strategy}${type}`;
  return `${name}${index}${rel}${alias}  ${cost}`;
}

function walk(node: PlanNode, depth: number, out: string[]): void {
  const pad = depth === 0 ? '' : `${' '.repeat(depth * 6 - 4)}->  `;
  const sub = typeof node['Subplan Name'] === 'string' ? `${' '.repeat(Math.max(0, depth * 6 - 4))}${String(node['Subplan Name'])}` : null;
  if (sub !== null) out.push(sub);
  out.push(`${pad}${line(node)}`);
  for (const key of ['Filter', 'Index Cond', 'Join Filter', 'Hash Cond', 'Sort Key']) {
    const v = node[key];
    if (v !== undefined) out.push(`${' '.repeat(depth * 6 + 2)}${key}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
  }
  const plans = node['Plans'];
  if (Array.isArray(plans)) for (const p of plans) walk(p as PlanNode, depth + 1, out);
}

/** Renders the JSON text of `EXPLAIN (FORMAT JSON)` as indented lines. */
export function renderExplain(jsonText: string): string[] {
  const parsed = JSON.parse(jsonText) as Array<{ Plan?: PlanNode }>;
  const out: string[] = [];
  for (const item of parsed) if (item.Plan !== undefined) walk(item.Plan, 0, out);
  return out;
}

/** A join's statement: the keys it is run with are data, shown as typed placeholders in `prepared_arguments`. */
export interface SqlJoinExplanation {
  readonly kind: 'sql';
  /** Response keys down to the objects the join fills, then the joined fields' names. */
  readonly path: string;
  readonly source: string;
  readonly sql: string;
  readonly plan: string[];
  readonly prepared_arguments: readonly unknown[];
}

/** A request to a remote schema: its document, join keys as typed placeholders. */
export interface RemoteRequestExplanation {
  readonly kind: 'remote';
  readonly path: string;
  readonly remote_schema: string;
  readonly query: string;
}

export type JoinExplanation = SqlJoinExplanation | RemoteRequestExplanation;

/**
 * One root field's explanation: v2's `{field, sql, plan}` (both null for a
 * field no statement answers, as v2's), plus `prepared_arguments` (makes
 * `sql` runnable as is), `remote_request` for a remote schema's root field,
 * and `joins`: the statements and remote requests of its remote joins in the
 * order they run (Note [Explaining joins]).
 */
export interface FieldExplanation {
  readonly field: string;
  readonly sql: string | null;
  readonly plan: string[] | null;
  readonly prepared_arguments: readonly unknown[];
  readonly remote_request?: { readonly remote_schema: string; readonly query: string; readonly variables: Readonly<Record<string, unknown>> };
  readonly joins?: readonly JoinExplanation[];
}

/*
 * Note [Explaining joins]
 * The joins of a root field run after its value arrived, with keys read
 * from it: a statement per source and level (`column IN (keys)`), a request
 * per remote schema and level (one aliased field per distinct key). Explain
 * runs nothing but EXPLAIN, so the keys are unknown: a join statement is
 * explained with every key bound to an empty array (the plan Postgres
 * picks for the statement's shape; its row estimates are those of no key),
 * and shown with its key arguments as `<keys: type[]>`; a remote request
 * is shown as its document with each key as `<field: Type>`. Joins are
 * taken from the plan's steps (those of one level are one statement or
 * request per step; explain compiles the ones of each root field apart, as
 * it does the root fields themselves) and listed level by level.
 */

/** The database type of each key variable of `join` (from its `column IN (keys)` comparisons). */
function keyTypes(join: ir.TableJoin): Map<string, string> {
  const names = new Set(join.keyVariables);
  const out = new Map<string, string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) visit(x);
    else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const right = o['right'] as { kind?: unknown; name?: unknown } | undefined;
      if (o['kind'] === 'compare' && right?.kind === 'variable' && typeof right.name === 'string' && names.has(right.name))
        out.set(right.name, String(o['dbType']));
      for (const x of Object.values(o)) visit(x);
    }
  };
  visit(join.read);
  return out;
}

interface ExplainRequest {
  readonly variables: Readonly<Record<string, unknown>>;
  readonly session: Session;
  readonly catalog: Catalog;
}

/** Explains `joins` (one level) and their nested joins, level by level, under `prefix` (response keys). */
async function explainJoins(joins: readonly StepJoin[], prefix: readonly string[], req: ExplainRequest, out: JoinExplanation[]): Promise<void> {
  const next: Array<[readonly StepJoin[], readonly string[]]> = [];
  for (const sj of joins) {
    const list: ReadonlyArray<PlannedJoin<ir.Join>> = sj.joins;
    const path = list.map((p) => [...prefix, ...p.join.path, p.join.alias].join('.')).join(', ');
    if (sj.kind === 'remote') {
      out.push({ kind: 'remote', path, remote_schema: sj.remote.name, query: remoteJoinDocument(sj.joins.map((p) => p.join)) });
    } else {
      const source = req.catalog.sources.get(sj.source);
      if (source === undefined) continue;
      const keys = new Map<string, string>();
      for (const p of sj.joins) for (const [k, t] of keyTypes(p.join)) keys.set(k, t);
      const vars: Record<string, unknown> = { ...req.variables };
      for (const k of keys.keys()) vars[k] = [];
      const compile = backendFor(source.kind).compile;
      const bound = bindStatement(compile.explain(sj.sql), vars, req.session);
      const text = await runStatement(source.connection, bound);
      const shown = bound.values.map((v, i) => {
        const p = sj.sql.params[i];
        return p !== undefined && p.kind === 'variable' && keys.has(p.name) ? `<keys: ${keys.get(p.name) ?? 'text'}[]>` : v;
      });
      out.push({ kind: 'sql', path, source: sj.source, sql: sj.sql.text, plan: text === null ? [] : renderExplain(text), prepared_arguments: shown });
    }
    for (const p of list) if (p.nested.length > 0) next.push([p.nested, [...prefix, ...p.join.path, p.join.alias]]);
  }
  for (const [nested, at] of next) await explainJoins(nested, at, req, out);
}

/** The joins of `steps` whose paths start at root field `alias`, planned apart (Note [Explaining joins]). */
function joinsOf(steps: readonly PlanStep[], alias: string, catalog: Catalog): StepJoin[] {
  const mine = steps.flatMap((s) => (s.joins ?? []).flatMap((sj) => sj.joins.map((p) => p.join as ir.Join))).filter((j) => j.path[0] === alias);
  return mine.length === 0 ? [] : planJoins(mine, catalog);
}

/** The remote step answering root field `alias`, if any. */
function remoteStepOf(steps: readonly PlanStep[], alias: string): RemoteStep | undefined {
  return steps.find((s): s is RemoteStep => s.kind === 'remote' && s.body.members.some((m) => m.alias === alias));
}

/** Explains each database or remote root field of `plan` on its own (the plan's IR, compiled one field at a time), with its joins. */
export async function explainPlan(plan: Plan, variables: Readonly<Record<string, unknown>>, session: Session, catalog: Catalog): Promise<FieldExplanation[]> {
  const out: FieldExplanation[] = [];
  const req: ExplainRequest = { variables, session, catalog };
  for (const f of plan.fields) {
    if (f.kind === 'static' || f.kind === 'mutation' || f.kind === 'action') continue;
    const joins: JoinExplanation[] = [];
    await explainJoins(joinsOf(plan.steps, f.alias, catalog), [], req, joins);
    const withJoins = joins.length === 0 ? {} : { joins };
    if (f.kind === 'remote' || f.kind === 'remote-namespace') {
      const step = remoteStepOf(plan.steps, f.alias);
      if (step === undefined) continue;
      // The request of every root field of this remote schema in the operation (they are sent as one).
      const bound = JSON.parse(bindRemote(step.body, variables, session).body) as { query: string; variables: Record<string, unknown> };
      out.push({ field: f.alias, sql: null, plan: null, prepared_arguments: [], remote_request: { remote_schema: f.remote, ...bound }, ...withJoins });
      continue;
    }
    const source = catalog.sources.get(f.source);
    if (source === undefined) continue;
    const compile = backendFor(source.kind).compile;
    const sql = compile.query([f], source.target);
    const bound = bindStatement(compile.explain(sql), variables, session);
    const text = await runStatement(source.connection, bound);
    out.push({ field: f.alias, sql: sql.text, plan: text === null ? [] : renderExplain(text), prepared_arguments: bound.values, ...withJoins });
  }
  return out;
}
