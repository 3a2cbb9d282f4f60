/**
 * Whether the engine's statements are planned again on every execution: each
 * case (mutations: insert one / many / on_conflict, update _set / _inc / by pk,
 * delete; reads: the quick set's engine targets) sent `--calls` times through
 * a running engine, then pg_stat_statements' calls, plans, plan and execution
 * time per statement, and the CPU of every server backend of the database
 * (schedstat) per request (issue 35; Note [Generic plans for mutations] in
 * engine/backends/postgres/compile-mutation.ts).
 *
 * The CPU figures are of the whole request: every statement of it, and BEGIN/COMMIT.
 *
 * Run: BENCH_PG_STAT_STATEMENTS=1 node test/bench/serve.ts chinook /tmp/t.json, then
 *   node test/bench/mutation-plans.ts <engine /v1/graphql url> <database url> [--calls N] [--targets /tmp/t.json] [--only TEXT] [--engine-pid PID] [--assertion-cost]
 * (the database URL: the raw peer's BENCH_DATABASE_URL; the mutations write the chinook `artists` and
 * `albums` and `invoice_lines` tables and put back what they change; role `plan_writer` gets insert and update
 * permissions with a check on `artists`).
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';

const [engineUrl, databaseUrl] = process.argv.slice(2);
if (engineUrl === undefined || databaseUrl === undefined)
  throw new Error('usage: mutation-plans.ts <engine graphql url> <database url> [--calls N] [--targets file] [--only TEXT]');
const opt = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const calls = Number(opt('--calls') ?? 200);
const only = opt('--only');
const enginePid = opt('--engine-pid');

/** CPU µs of the engine process (user + system), when `--engine-pid` is given. */
async function engineCpu(): Promise<number> {
  if (enginePid === undefined) return 0;
  const f = (await readFile(`/proc/${enginePid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1e6) / 100; // clock ticks (USER_HZ = 100)
}

interface Case {
  readonly label: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}
const gql = (label: string, query: string, variables: Record<string, unknown> = {}): Case => ({
  label,
  body: JSON.stringify({ query, variables }),
  headers: {},
});

const cases: Case[] = [
  gql('insert one', 'mutation ($n: String) { insert_artists_one(object: {name: $n}) { id name } }', { n: 'plan-test' }),
  gql('insert 3 rows', 'mutation ($o: [artists_insert_input!]!) { insert_artists(objects: $o) { affected_rows returning { id } } }', {
    o: [{ name: 'plan-a' }, { name: 'plan-b' }, { name: 'plan-c' }],
  }),
  gql(
    'insert on_conflict update',
    'mutation ($n: String) { insert_artists_one(object: {id: 1, name: $n}, on_conflict: {constraint: pk_artists, update_columns: [name]}) { id name } }',
    { n: 'AC/DC' },
  ),
  gql('update_by_pk _set', 'mutation ($n: String) { update_artists_by_pk(pk_columns: {id: 1}, _set: {name: $n}) { id name } }', { n: 'AC/DC' }),
  gql('update where _inc', 'mutation { update_invoice_lines(where: {id: {_eq: 1}}, _inc: {quantity: 0}) { affected_rows } }'),
  gql(
    'update where _set _inc',
    'mutation ($n: String) { update_artists(where: {id: {_eq: 1}}, _set: {name: $n}, _inc: {id: 0}) { affected_rows returning { id } } }',
    {
      n: 'AC/DC',
    },
  ),
  gql('delete where', 'mutation { delete_artists(where: {name: {_eq: "plan-none"}}) { affected_rows } }'),
  gql('delete_by_pk', 'mutation { delete_artists_by_pk(id: -1) { id } }'),
  // Several statements in one transaction (connection.ts transactionJsonText): an assertion after a role's check,
  // update_many's entries, a nested insert's read-back.
  {
    ...gql('role insert one (check)', 'mutation ($n: String) { insert_artists_one(object: {name: $n}) { id } }', { n: 'plan-role' }),
    headers: { 'x-engine-role': 'plan_writer' },
  },
  {
    ...gql('role update_by_pk (check)', 'mutation ($n: String) { update_artists_by_pk(pk_columns: {id: 1}, _set: {name: $n}) { id } }', { n: 'AC/DC' }),
    headers: { 'x-engine-role': 'plan_writer' },
  },
  gql(
    'update_many 2 entries',
    'mutation ($n: String) { update_artists_many(updates: [{where: {id: {_eq: 1}}, _set: {name: $n}}, {where: {id: {_eq: -1}}, _set: {name: $n}}]) { affected_rows } }',
    { n: 'AC/DC' },
  ),
  gql(
    'nested insert, output through a relationship',
    'mutation ($t: String) { insert_albums_one(object: {title: $t, artist: {data: {name: $t}}}) { id artist { name } } }',
    {
      t: 'plan-nested',
    },
  ),
];
// Reads whose variables could make a plan depend on their values (a LIMIT, a LIKE pattern, an IN list).
cases.push(
  gql('read limit $n', 'query ($n: Int) { albums(limit: $n, order_by: {id: asc}) { id } }', { n: 5 }),
  gql('read _like $p', 'query ($p: String) { albums(where: {title: {_like: $p}}) { id } }', { p: 'Rock%' }),
  gql('read _in $ids', 'query ($ids: [Int!]) { tracks(where: {id: {_in: $ids}}) { id } }', { ids: [1, 2, 3] }),
  gql('read _eq $a', 'query ($a: Int) { albums(where: {artist_id: {_eq: $a}}) { id } }', { a: 1 }),
);
const targets = opt('--targets');
if (targets !== undefined) {
  const t = JSON.parse(await readFile(targets, 'utf8')) as {
    cells: Array<{ op: string; role: string; targets: { engine?: { body: string; headers: Record<string, string> } } }>;
  };
  for (const c of t.cells) {
    if (c.targets.engine === undefined) continue;
    cases.push({ label: `read ${c.op} ${c.role}`, body: c.targets.engine.body, headers: c.targets.engine.headers });
  }
}

const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();

/**
 * `--assertion-cost`: what the assertion statement after a checked write costs this backend, without the engine: the
 * golden update-role's write alone, with its DO block, with an empty DO block and with a plain SELECT, each named,
 * in BEGIN .. ROLLBACK, alternated, CPU µs per transaction (schedstat of this connection's backend).
 */
if (process.argv.includes('--assertion-cost')) {
  const golden = await readFile(new URL('../golden/passing/mutations/update-role/expected.postgres.sql', import.meta.url), 'utf8');
  const [write, assert] = golden.split(/;\n-- params: .*\n\n?/).filter((x) => x.trim() !== '');
  if (write === undefined || assert === undefined) throw new Error('golden update-role: expected a write and an assertion');
  const values = ['{"name":"n"}', '8', '1', '{}', '0'];
  const pid = (await db.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
  const cpuNs = async (): Promise<number> => Number((await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ')[0]);
  const w = { text: write, values, name: 'w' };
  const variants: Record<string, Array<{ text: string; values: unknown[]; name: string }>> = {
    'write only': [w],
    'write + DO assertion': [w, { text: assert, values: [], name: 'a' }],
    'write + empty DO': [w, { text: 'DO $$BEGIN END$$', values: [], name: 'e' }],
    'write + SELECT': [w, { text: "SELECT current_setting('engine.error', true)", values: [], name: 's' }],
  };
  const run = async (k: string, n: number): Promise<number> => {
    const t0 = await cpuNs();
    for (let i = 0; i < n; i++) {
      await db.query('BEGIN');
      for (const q of variants[k]!) await db.query(q);
      await db.query('ROLLBACK');
    }
    return ((await cpuNs()) - t0) / n / 1000;
  };
  for (const k of Object.keys(variants)) await run(k, 30);
  const runs: Record<string, number[]> = {};
  for (let r = 0; r < 9; r++) for (const k of Object.keys(variants)) (runs[k] ??= []).push(await run(k, Math.max(100, calls)));
  for (const [k, a] of Object.entries(runs)) {
    a.sort((x, y) => x - y);
    console.log(`${k.padEnd(22)} PostgreSQL CPU µs/transaction: median ${a[4]!.toFixed(0)} (runs ${a.map((x) => x.toFixed(0)).join(' ')})`);
  }
  await db.end();
  process.exit(0);
}
await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
await db.query('ALTER SYSTEM SET pg_stat_statements.track_planning = on');
await db.query('SELECT pg_reload_conf()');

// The role of the check cases: insert and update on artists with a check (an assertion statement follows the write).
const metadataUrl = engineUrl.replace(/\/v1\/graphql$/, '/v1/metadata');
for (const [type, permission] of [
  ['pg_create_insert_permission', { check: { id: { _gt: 0 } }, columns: ['name'] }],
  ['pg_create_update_permission', { filter: {}, check: { id: { _gt: 0 } }, columns: ['name'] }],
  ['pg_create_select_permission', { filter: {}, columns: ['id', 'name'] }],
] as const) {
  const res = await fetch(metadataUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type, args: { source: 'default', table: 'artists', role: 'plan_writer', permission } }),
  });
  const text = await res.text();
  if (!res.ok && !text.includes('already-exists')) throw new Error(`${type}: ${text}`);
}

/** CPU ns of every other backend of this database (the engine's pool). */
async function backendCpu(): Promise<number> {
  const { rows } = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  let ns = 0;
  for (const { pid } of rows) {
    try {
      ns += Number((await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ')[0]);
    } catch {
      // ended meanwhile
    }
  }
  return ns;
}

async function send(c: Case): Promise<void> {
  const res = await fetch(engineUrl!, { method: 'POST', headers: { 'content-type': 'application/json', ...c.headers }, body: c.body });
  const text = await res.text();
  if (!res.ok || text.includes('"errors"')) throw new Error(`${c.label}: ${text}`);
}

const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;
const rows: Array<Record<string, string | number>> = [];
for (const c of cases) {
  if (only !== undefined && !c.label.includes(only)) continue;
  for (let i = 0; i < 20; i++) await send(c); // every pooled connection past its first five executions
  await db.query('SELECT pg_stat_statements_reset()');
  const cpu0 = await backendCpu();
  const e0 = await engineCpu();
  for (let i = 0; i < calls; i++) await send(c);
  const cpu = (await backendCpu()) - cpu0;
  const engine = (await engineCpu()) - e0;
  const { rows: st } = await db.query<{ query: string; calls: string; plans: string; plan: number; exec: number }>(
    `SELECT query, calls, plans, total_plan_time AS plan, total_exec_time AS exec FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT IN ('BEGIN', 'COMMIT')
       AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE 'SELECT pid FROM pg_stat_activity%' ORDER BY calls DESC, total_exec_time DESC`,
  );
  for (const s of st) {
    if (Number(s.calls) < calls / 2) continue;
    rows.push({
      case: c.label,
      statement: s.query.replace(/\s+/g, ' ').slice(0, 60),
      'calls/req': round(Number(s.calls) / calls, 2),
      'plans/call': round(Number(s.plans) / Number(s.calls), 2),
      'plan ms/call': round(s.plan / Number(s.calls), 4),
      'exec ms/call': round(s.exec / Number(s.calls), 4),
      'PG CPU ms/req': round(cpu / 1e6 / calls, 4),
      ...(enginePid === undefined ? {} : { 'engine CPU µs/req': round(engine / calls, 0) }),
    });
  }
}
// Undo what the inserts added.
await db.query(`DELETE FROM albums WHERE title LIKE 'plan-%'`);
await db.query(`DELETE FROM artists WHERE name LIKE 'plan-%'`);
await db.end();
console.table(rows);
