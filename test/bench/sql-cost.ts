/**
 * `node test/bench/sql-cost.ts [options]`: what Engine's generated read
 * statements cost PostgreSQL, without HTTP load. For every workload operation
 * and role it takes the statement Engine runs (from `/v1/graphql/explain`,
 * with its prepared arguments) and executes it many times through `pg` as a
 * named prepared statement (as Engine does), timing each execution on the
 * client. Variants of a statement (another engine checkout, or hand-written
 * SQL files) run interleaved with it, round by round in alternating order,
 * and must answer the very same text.
 *
 * Options:
 *   --datasets a,b       chinook and/or sf<N> (default chinook,sf10)
 *   --ops a,b            only these operations;  --roles a,b  only these roles (admin, customer)
 *   --runs N             executions per variant per round (default 40)
 *   --rounds N           rounds; variants alternate order every round (default 6)
 *   --warmup N           executions per variant before timing (default 15: past the generic-plan switch)
 *   --engine-root a,b    engine checkouts to take statements from (default this one); each is a
 *                        variant (a git worktree of an older commit with a node_modules symlink)
 *   --variants dir       more variants: files `<dataset>.<Op>.<role>.<label>.sql`, run with the
 *                        first engine's prepared arguments
 *   --generic-too        also run each variant on a connection with plan_cache_mode = force_generic_plan
 *                        (label `/gen`); the `plans` column shows generic/custom plans PostgreSQL made
 *   --dump dir           write each statement (`<dataset>.<Op>.<role>.<label>.sql`) and its
 *                        EXPLAIN (ANALYZE, BUFFERS) (`….plan.txt`)
 *   --server url         reuse a server whose bench_<dataset> databases are loaded (from --serve)
 *   --serve              load the data sets, print the server URL, and keep it running (Ctrl-C stops)
 *
 * Reported per variant, in ms per execution: mean, median and 10th percentile on the client (round
 * trip included), and the median and 10th percentile of PostgreSQL's own execution time from
 * EXPLAIN (ANALYZE, TIMING OFF) with the median planning time (paid at every execution when
 * PostgreSQL keeps choosing custom plans for a prepared statement). The median ratio to the first variant closes the line.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { chinookWorkloadText } from './data/chinook.ts';
import { loadDataset, parseDatasets } from './lib/datasets.ts';
import { setEngineRoot, startEngine, type BenchEngine } from './lib/engine.ts';
import { engineHeaders, ROLES, type RoleName } from './lib/peers.ts';
import { startBenchPostgres, type BenchPostgres } from './lib/postgres.ts';
import { ROOT } from './lib/process.ts';
import { loadWorkload } from './workload.ts';

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const list = (name: string): string[] | null =>
  option(name)
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '') ?? null;
const num = (name: string, dflt: number): number => {
  const v = option(name);
  const n = v === undefined ? dflt : Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} needs a positive whole number, got ${v}`);
  return n;
};
const log = (s: string): void => void process.stdout.write(`${s}\n`);

const datasets = parseDatasets(option('--datasets') ?? 'chinook,sf10');
const onlyOps = list('--ops');
const onlyRoles = (list('--roles') ?? [...ROLES]) as RoleName[];
const runs = num('--runs', 40);
const rounds = num('--rounds', 6);
const warmup = num('--warmup', 15);
const engineRoots = (list('--engine-root') ?? [ROOT]).map((r) => path.resolve(r));
const variantsDir = option('--variants');
const dumpDir = option('--dump');

/** One statement to time: Engine's or a variant of it. */
interface Variant {
  readonly label: string;
  readonly text: string;
  readonly values: unknown[];
  /** Run on the connection with `plan_cache_mode = force_generic_plan` (--generic-too). */
  readonly generic?: boolean;
}

/** The statement Engine runs for one operation and role. */
async function explainStatement(
  engine: BenchEngine,
  query: string,
  op: string,
  variables: unknown,
  role: RoleName,
): Promise<{ text: string; values: unknown[] }> {
  const res = await fetch(`${engine.url}/v1/graphql/explain`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { query, operationName: op, variables }, user: engineHeaders(role) }),
  });
  const body = await res.text();
  const parsed = JSON.parse(body) as Array<{ sql: string; prepared_arguments?: unknown[] }>;
  const only = parsed[0];
  if (res.status !== 200 || parsed.length !== 1 || only?.prepared_arguments === undefined)
    throw new Error(`explain of ${op} as ${role}: ${res.status} ${body.slice(0, 300)}`);
  return { text: only.sql, values: only.prepared_arguments };
}

const textTypes: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };
let statementNo = 0;

/** Runs `v` as a named prepared statement; the answer text. */
async function execute(client: pg.Client, name: string, v: Variant): Promise<string> {
  const res = await client.query({ name, text: v.text, values: v.values, rowMode: 'array', types: textTypes });
  return String((res.rows[0] as unknown[] | undefined)?.[0] ?? 'null');
}

/** PostgreSQL's own planning and execution times of one run of `v` (EXPLAIN ANALYZE without per-node timing). */
async function serverMs(client: pg.Client, v: Variant): Promise<{ plan: number; exec: number }> {
  const res = await client.query({ text: `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${v.text}`, values: v.values, rowMode: 'array', types: textTypes });
  const plan = JSON.parse(String((res.rows[0] as unknown[])[0])) as Array<{ 'Execution Time': number; 'Planning Time': number }>;
  return { plan: plan[0]?.['Planning Time'] ?? NaN, exec: plan[0]?.['Execution Time'] ?? NaN };
}

/** JSON text without the whitespace outside strings: numbers, key order and escapes stay as written. */
function minified(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch !== ' ' && ch !== '\n' && ch !== '\t' && ch !== '\r') out += ch;
  }
  return out;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** The p-th fraction's value (p10 is robust to other work on a shared machine). */
const quantile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))] ?? NaN;

/** Times the variants of one cell; prints one line per variant. */
async function timeCell(clients: { auto: pg.Client; generic: pg.Client }, cell: string, variants: Variant[]): Promise<void> {
  const on = (v: Variant): pg.Client => (v.generic === true ? clients.generic : clients.auto);
  const names = variants.map(() => `cost_${statementNo++}`);
  const answers = new Map<string, string>();
  for (let i = 0; i < variants.length; i++) {
    const v = variants[i] as Variant;
    let answer = '';
    for (let k = 0; k < warmup; k++) answer = await execute(on(v), names[i] as string, v);
    answers.set(v.label, answer);
  }
  const reference = answers.get(variants[0]?.label ?? '') ?? '';
  for (const [label, a] of answers) {
    if (a === reference) continue;
    if (minified(a) === minified(reference))
      log(`   .. ${cell}: ${label} answers the same JSON (whitespace differs: ${a.length} vs ${reference.length} chars)`);
    else log(`   !! ${cell}: ${label} answers DIFFERENTLY (${a.length} vs ${reference.length} chars)`);
  }
  const client_ = variants.map(() => [] as number[]);
  const server = variants.map(() => [] as number[]);
  const planning = variants.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    const order = variants.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) {
      const v = variants[i] as Variant;
      for (let k = 0; k < runs; k++) {
        const t = process.hrtime.bigint();
        await execute(on(v), names[i] as string, v);
        client_[i]?.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      for (let k = 0; k < Math.max(1, Math.floor(runs / 8)); k++) {
        const t = await serverMs(clients.auto, v);
        server[i]?.push(t.exec);
        planning[i]?.push(t.plan);
      }
    }
  }
  // Whether PostgreSQL settled on a generic plan (a custom plan is planned again at every execution).
  const planOf = new Map<string, string>();
  for (const c of [clients.auto, clients.generic]) {
    const plans = await c.query<{ name: string; generic_plans: string; custom_plans: string }>(
      'SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name = ANY($1)',
      [names],
    );
    for (const r of plans.rows) planOf.set(r.name, `${r.generic_plans}g/${r.custom_plans}c`);
  }
  const base = median(client_[0] ?? []);
  variants.forEach((v, i) => {
    const c = client_[i] ?? [];
    const m = median(c);
    const rel = i === 0 ? '' : `  ×${(m / base).toFixed(2)}`;
    const f = (x: number): string => x.toFixed(3).padStart(7);
    log(
      `   ${cell.padEnd(36)} ${v.label.padEnd(12)} mean ${f(mean(c))}  median ${f(m)}  p10 ${f(quantile(c, 0.1))}  | pg exec median ${f(median(server[i] ?? []))}  p10 ${f(quantile(server[i] ?? [], 0.1))}  planning ${f(median(planning[i] ?? []))}  plans ${planOf.get(names[i] ?? '') ?? '?'}${rel}`,
    );
  });
}

/** Hand-written variants of `<dataset>.<op>.<role>` from --variants. */
async function fileVariants(prefix: string, values: unknown[]): Promise<Variant[]> {
  if (variantsDir === undefined) return [];
  const files = (await readdir(variantsDir)).filter((f) => f.startsWith(`${prefix}.`) && f.endsWith('.sql') && !f.endsWith('.plan.sql')).sort();
  return await Promise.all(
    files.map(async (f) => ({
      label: f.slice(prefix.length + 1, -4),
      text: (await readFile(path.join(variantsDir, f), 'utf8'))
        .replace(/^-- params:.*$/m, '')
        .trim()
        .replace(/;$/, ''),
      values,
    })),
  );
}

async function main(): Promise<void> {
  const serverUrl = option('--server');
  let bench: BenchPostgres | null = null;
  const dbUrl = (name: string): string => {
    if (serverUrl !== undefined) return new URL(`/bench_${name}`, serverUrl).toString();
    if (bench === null) throw new Error('no server');
    return bench.url(`bench_${name}`);
  };
  const engines: BenchEngine[] = [];
  try {
    if (serverUrl === undefined) {
      bench = await startBenchPostgres();
      for (const name of datasets) {
        log(`loading ${name}`);
        const ds = await loadDataset(bench, name, 4);
        await ds.engine.stop();
      }
    }
    if (argv.includes('--serve')) {
      log(`SERVER ${bench?.url('postgres') ?? serverUrl}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      return;
    }
    const workload = loadWorkload(await chinookWorkloadText());
    if (dumpDir !== undefined) await mkdir(dumpDir, { recursive: true });
    log(`runs ${runs} × rounds ${rounds}, warm-up ${warmup}; ms per execution`);
    for (const name of datasets) {
      const url = dbUrl(name);
      const roots: Array<{ label: string; engine: BenchEngine }> = [];
      for (const root of engineRoots) {
        setEngineRoot(root);
        const engine = await startEngine(url);
        engines.push(engine);
        roots.push({ label: engineRoots.length === 1 ? 'engine' : path.basename(root), engine });
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const generic = new pg.Client({ connectionString: url });
      await generic.connect();
      await generic.query('SET plan_cache_mode = force_generic_plan');
      try {
        log(`\n== ${name}`);
        for (const op of workload.ops) {
          if (onlyOps !== null && !onlyOps.includes(op.name)) continue;
          for (const role of onlyRoles) {
            if (role === 'customer' && op.customerNotApplicable !== null) continue;
            const query = workload.engineQuery.get(op.name) ?? '';
            const variants: Variant[] = [];
            for (const r of roots) variants.push({ label: r.label, ...(await explainStatement(r.engine, query, op.name, op.variables, role)) });
            const prefix = `${name}.${op.name}.${role}`;
            variants.push(...(await fileVariants(prefix, variants[0]?.values ?? [])));
            if (argv.includes('--generic-too')) variants.push(...variants.map((v) => ({ ...v, label: `${v.label}/gen`, generic: true })));
            if (dumpDir !== undefined) {
              for (const v of variants) {
                await writeFile(path.join(dumpDir, `${prefix}.${v.label.replace(/\//g, '-')}.sql`), `${v.text};\n-- params: ${JSON.stringify(v.values)}\n`);
                const plan = await client.query({ text: `EXPLAIN (ANALYZE, BUFFERS, VERBOSE) ${v.text}`, values: v.values });
                await writeFile(
                  path.join(dumpDir, `${prefix}.${v.label.replace(/\//g, '-')}.plan.txt`),
                  plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n') + '\n',
                );
              }
            }
            await timeCell({ auto: client, generic }, `${op.name} as ${role}`, variants);
          }
        }
      } finally {
        await client.end();
        await generic.end();
      }
      for (const e of engines.splice(0)) await e.stop();
    }
  } finally {
    for (const e of engines) await e.stop();
    if (bench !== null) await bench.stop();
  }
}

await main();
