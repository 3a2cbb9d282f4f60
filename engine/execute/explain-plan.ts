/** Postgres `EXPLAIN (FORMAT JSON)` output → the text lines users read. */

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
