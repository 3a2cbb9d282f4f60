/**
 * The three peers on one data set, each its own process on the same
 * PostgreSQL with the same pool size: Engine, PostGraphile v5 and the raw-SQL
 * server. Builds the load targets of every (operation, role, peer) and checks
 * that the peers' answers agree before anything is timed.
 */
import { isDeepStrictEqual } from 'node:util';
import { canonical, CUSTOMER_ID, type Json, type Workload, type WorkloadOp } from '../workload.ts';
import type { BenchEngine } from './engine.ts';
import type { LoadTarget } from './load.ts';
import { spawnPeer, type PeerProcess } from './process.ts';

/** The peers, in report order. */
export const PEERS = ['engine', 'postgraphile', 'raw'] as const;
/** One of {@link PEERS}. */
export type PeerName = (typeof PEERS)[number];
/** The roles the workload runs as. */
export const ROLES = ['admin', 'customer'] as const;
/** One of {@link ROLES}. */
export type RoleName = (typeof ROLES)[number];

/** Engine's session headers for a role (no admin secret is set, so headers choose the role). */
export function engineHeaders(role: RoleName): Record<string, string> {
  return role === 'admin' ? {} : { 'x-engine-role': 'customer', 'x-engine-user-id': String(CUSTOMER_ID) };
}

/** One (operation, role) cell: its targets per peer, or why it does not run. */
export interface Cell {
  readonly op: WorkloadOp;
  readonly role: RoleName;
  readonly targets: Partial<Record<PeerName, LoadTarget>> | null;
  readonly notApplicable: string | null;
}

/** The running peers of one data set. */
export interface PeerSet {
  readonly engine: BenchEngine;
  readonly postgraphile: PeerProcess;
  readonly raw: PeerProcess;
  /** Process id per peer, for RSS. */
  pid(peer: PeerName): number | undefined;
  stop(): Promise<void>;
}

/** Starts PostGraphile and the raw-SQL server next to an already configured engine. */
export async function startOtherPeers(engine: BenchEngine, databaseUrl: string, poolMax: number): Promise<PeerSet> {
  const env = { BENCH_DATABASE_URL: databaseUrl, BENCH_PORT: '0', BENCH_POOL_MAX: String(poolMax) };
  const [postgraphile, raw] = await Promise.all([
    spawnPeer('test/bench/peers/postgraphile-server.ts', env),
    spawnPeer('test/bench/peers/raw-sql-server.ts', env),
  ]);
  const pids: Record<PeerName, number | undefined> = { engine: engine.child.pid, postgraphile: postgraphile.child.pid, raw: raw.child.pid };
  return {
    engine,
    postgraphile,
    raw,
    pid: (peer) => pids[peer],
    async stop() {
      await Promise.all([engine.stop(), postgraphile.stop(), raw.stop()]);
    },
  };
}

async function post(url: string, body: string, headers: Readonly<Record<string, string>>): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, text: await res.text() };
}

function dataOf(peer: string, cell: string, r: { status: number; text: string }): { [k: string]: Json } {
  const parsed = JSON.parse(r.text) as { data?: { [k: string]: Json } | null; errors?: unknown };
  if (r.status !== 200 || parsed.errors !== undefined || parsed.data === undefined || parsed.data === null) {
    throw new Error(`${peer} failed ${cell}: ${r.status} ${r.text.slice(0, 600)}`);
  }
  return parsed.data;
}

/** The first difference between two JSON values, as a path and both values (for error messages). */
function firstDifference(a: Json, b: Json, path = '$'): string {
  if (isDeepStrictEqual(a, b)) return '';
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: length ${a.length} vs ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i] ?? null, b[i] ?? null, `${path}[${i}]`);
      if (d !== '') return d;
    }
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k] ?? null, b[k] ?? null, `${path}.${k}`);
      if (d !== '') return d;
    }
  }
  return `${path}: ${JSON.stringify(a).slice(0, 200)} vs ${JSON.stringify(b).slice(0, 200)}`;
}

/**
 * Registers Engine's generated statements with the raw-SQL server, checks
 * every peer's answer against Engine's, and returns the cells to time.
 * Throws on any disagreement: nothing is timed on wrong answers.
 */
export async function prepareCells(peers: PeerSet, workload: Workload): Promise<Cell[]> {
  const cells: Cell[] = [];
  const statements: Record<string, { text: string; values: unknown[] }> = {};
  const pending: Array<{ op: WorkloadOp; role: RoleName; key: string; engineBody: string; engineText: string }> = [];
  for (const op of workload.ops) {
    for (const role of ROLES) {
      const label = `${op.name} as ${role}`;
      if (role === 'customer' && op.customerNotApplicable !== null) {
        // Engine must refuse it exactly as v2 would; otherwise the bench's premise is wrong.
        const r = await post(
          `${peers.engine.url}/v1/graphql`,
          JSON.stringify({ query: workload.engineQuery.get(op.name), operationName: op.name, variables: op.variables }),
          engineHeaders(role),
        );
        if (!r.text.includes('"errors"')) throw new Error(`${label}: expected Engine to refuse it (${op.customerNotApplicable}), got ${r.text.slice(0, 300)}`);
        cells.push({ op, role, targets: null, notApplicable: op.customerNotApplicable });
        continue;
      }
      const engineBody = JSON.stringify({ query: workload.engineQuery.get(op.name), operationName: op.name, variables: op.variables });
      const e = await post(`${peers.engine.url}/v1/graphql`, engineBody, engineHeaders(role));
      dataOf('engine', label, e);
      // The statement Engine runs for this request, with its arguments, from explain.
      const user = role === 'admin' ? {} : { 'x-engine-role': 'customer', 'x-engine-user-id': String(CUSTOMER_ID) };
      const ex = await post(
        `${peers.engine.url}/v1/graphql/explain`,
        JSON.stringify({ query: { query: workload.engineQuery.get(op.name), operationName: op.name, variables: op.variables }, user }),
        {},
      );
      const explained = JSON.parse(ex.text) as Array<{ field: string; sql: string; prepared_arguments?: unknown[] }>;
      if (ex.status !== 200 || !Array.isArray(explained) || explained.length !== 1)
        throw new Error(`${label}: explain answered ${ex.status} ${ex.text.slice(0, 300)}`);
      const only = explained[0];
      if (only?.prepared_arguments === undefined) throw new Error(`${label}: explain gave no prepared_arguments`);
      const key = `${op.name}.${role}`;
      statements[key] = { text: only.sql, values: only.prepared_arguments };
      pending.push({ op, role, key, engineBody, engineText: e.text });
    }
  }
  const reg = await post(`${peers.raw.url}/statements`, JSON.stringify(statements), {});
  if (reg.status !== 200) throw new Error(`raw-SQL server refused the statements: ${reg.text}`);
  for (const { op, role, key, engineBody, engineText } of pending) {
    const label = `${op.name} as ${role}`;
    const engineData = dataOf('engine', label, { status: 200, text: engineText });
    // Raw SQL runs the very statement, so its answer must be the same JSON.
    const rawUrl = `${peers.raw.url}/run/${encodeURIComponent(key)}`;
    const raw = dataOf('raw', label, await post(rawUrl, '{}', {}));
    if (!isDeepStrictEqual(raw, engineData)) throw new Error(`${label}: raw SQL and Engine differ at ${firstDifference(raw, engineData)}`);
    const pgBody = JSON.stringify({ query: op.postgraphileQuery, variables: op.variables });
    const pgHeaders = engineHeaders(role);
    const pgData = dataOf('postgraphile', label, await post(peers.postgraphile.url, pgBody, pgHeaders));
    const want = canonical(op.comparableEngine(engineData));
    const got = canonical(op.fromPostgraphile(pgData));
    if (!isDeepStrictEqual(got, want)) throw new Error(`${label}: PostGraphile and Engine differ at ${firstDifference(got, want)}`);
    cells.push({
      op,
      role,
      notApplicable: null,
      targets: {
        engine: { url: `${peers.engine.url}/v1/graphql`, body: engineBody, headers: engineHeaders(role) },
        postgraphile: { url: peers.postgraphile.url, body: pgBody, headers: pgHeaders },
        // The role's session headers too: a bare server answering this role's statement needs them as
        // much as Engine does, and node:http parses them for both (Note [Raw peer's requests] in raw-sql-server.ts).
        raw: { url: rawUrl, body: '{}', headers: engineHeaders(role) },
      },
    });
  }
  const opIndex = (c: Cell): number => workload.ops.indexOf(c.op) * ROLES.length + ROLES.indexOf(c.role);
  return cells.sort((a, b) => opIndex(a) - opIndex(b));
}
