/**
 * `/v1/graphql/explain` after the request steps up to `plan` (Note [Request
 * steps]): each database root field's statement, its bound values and the
 * database's plan, rendered from Postgres `EXPLAIN (FORMAT JSON)` output as
 * the text lines users read.
 */
import type { Session } from '../auth/session.ts';
import { backendFor } from '../backends/registry.ts';
import type { Catalog } from '../catalog/types.ts';
import { bindStatement } from './bind.ts';
import type { Plan } from './plan.ts';
import { runStatement } from './run.ts';

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

/** One root field's explanation. `prepared_arguments` (an addition to v2's `{field, sql, plan}`) makes `sql` runnable as is. */
export interface FieldExplanation {
  readonly field: string;
  readonly sql: string;
  readonly plan: string[];
  readonly prepared_arguments: readonly unknown[];
}

/** Explains each database root field of `plan` on its own (the plan's IR, compiled one field at a time). */
export async function explainPlan(plan: Plan, variables: Readonly<Record<string, unknown>>, session: Session, catalog: Catalog): Promise<FieldExplanation[]> {
  const out: FieldExplanation[] = [];
  for (const f of plan.fields) {
    if (f.kind === 'static' || f.kind === 'mutation' || f.kind === 'action' || f.kind === 'remote' || f.kind === 'remote-namespace') continue;
    const source = catalog.sources.get(f.source);
    if (source === undefined) continue;
    const compile = backendFor(source.kind).compile;
    const sql = compile.query([f]);
    const bound = bindStatement(compile.explain(sql), variables, session);
    const text = await runStatement(source.connection, bound);
    out.push({ field: f.alias, sql: sql.text, plan: text === null ? [] : renderExplain(text), prepared_arguments: bound.values });
  }
  return out;
}
