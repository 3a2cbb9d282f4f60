/**
 * Load generation: autocannon in its own process (so it does not share an
 * event loop with anything measured), fixed connections and duration, and
 * the server's resident memory sampled while it runs.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { cpuMs, postgresCpuMs, ROOT, rssMiB } from './process.ts';

/** What to send. */
export interface LoadTarget {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** How long and how hard. Exactly one of `seconds` and `requests` bounds the run. */
export interface LoadShape {
  readonly connections: number;
  readonly seconds?: number;
  readonly requests?: number;
}

/** One run's numbers. */
export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  readonly errors: number;
  readonly non2xx: number;
  /** Largest RSS of the server process seen during the run (MiB), or null. */
  readonly rssMiB: number | null;
  /**
   * CPU milliseconds per request of the server process and of PostgreSQL
   * (all its processes; includes backends of idle peers, which use next to
   * nothing). On a shared two-core machine, throughput follows their sum.
   */
  readonly serverCpuMsPerReq: number | null;
  readonly postgresCpuMsPerReq: number;
}

interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** Runs autocannon against `target` while sampling the RSS of `serverPid`; CPU of it and of the PostgreSQL server `postmasterPid`. */
export async function runLoad(target: LoadTarget, shape: LoadShape, serverPid: number | undefined, postmasterPid: number): Promise<LoadResult> {
  const cli = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
  const args = [cli, '-j', '-c', String(shape.connections), '-m', 'POST', '-H', 'content-type=application/json', '-b', target.body];
  if (shape.requests !== undefined) args.push('-a', String(shape.requests));
  else args.push('-d', String(shape.seconds ?? 5));
  for (const [k, v] of Object.entries(target.headers)) args.push('-H', `${k}=${v}`);
  args.push(target.url);
  let maxRss: number | null = null;
  const sample = async (): Promise<void> => {
    const r = await rssMiB(serverPid);
    if (r !== null && (maxRss === null || r > maxRss)) maxRss = r;
  };
  const timer = setInterval(() => void sample(), 500);
  const cpu0 = await cpuMs(serverPid);
  const pg0 = await postgresCpuMs(postmasterPid);
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`autocannon exited ${code}: ${err}`))));
    });
    const cpu1 = await cpuMs(serverPid);
    const pg1 = await postgresCpuMs(postmasterPid);
    await sample();
    const r = JSON.parse(out) as AutocannonJson;
    const n = Math.max(1, r.requests.total);
    return {
      rps: shape.requests !== undefined ? r.requests.average : r.requests.total / (shape.seconds ?? 5),
      p50: r.latency.p50,
      p99: r.latency.p99,
      requests: r.requests.total,
      errors: r.errors + r.timeouts,
      non2xx: r.non2xx,
      rssMiB: maxRss,
      serverCpuMsPerReq: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / n,
      postgresCpuMsPerReq: (pg1 - pg0) / n,
    };
  } finally {
    clearInterval(timer);
  }
}

/** How a peer's warm-up went: the 1 s windows' req/s, and whether the last ones agreed. */
export interface WarmUp {
  readonly windows: readonly number[];
  readonly steady: boolean;
}

/**
 * Note [Steady-state warm-up] (issue 35). A fresh Node process serves its
 * first second several times slower than later ones (V8 tiers the request
 * path up over 3-4 s of load), so the first cell measured a cold peer:
 * AlbumByPK admin read 0.59× raw where the steady state was ~0.68×. Every
 * peer is therefore warmed the same way before its first measured run: 1 s
 * windows of load on `target` until the last three windows' req/s lie within
 * `tolerance` (10%) of their median (at least `minWindows`, at most `maxWindows`).
 * The same rule for every peer, so none gets more warm-up than another.
 *
 * Note [Warm-ups in turns]
 * Warming the peers one after the other left the first one idle while the
 * others warmed (20-30 s for the engine in `run.ts --quick`), and a Node
 * process idle for more than ~8 s has V8's memory reducer retire the
 * optimized code of its request path (Note [First cell after idle] in
 * engine/server/graphql-fast-path.ts): its first measured cell then paid for
 * recompiling, and the peer warmed last did not. So {@link warmInTurns}
 * gives the peers their 1 s windows in turns (engine, PostGraphile, raw,
 * engine, ...) until every one is steady: each idles at most one window per
 * other peer, as it does between the measured runs, which alternate too.
 * What a peer pays after a long idle is a figure of its own: `node
 * test/bench/first-cell.ts`.
 */
export async function warmUntilSteady(
  target: LoadTarget,
  connections: number,
  serverPid: number | undefined,
  postmasterPid: number,
  opts: WarmOptions = {},
): Promise<WarmUp> {
  const [only] = await warmInTurns([{ target, serverPid }], connections, postmasterPid, opts);
  return only ?? { windows: [], steady: false };
}

/** Bounds of a warm-up (Note [Steady-state warm-up]). */
export interface WarmOptions {
  readonly minWindows?: number;
  readonly maxWindows?: number;
  readonly tolerance?: number;
}

/**
 * Warms `peers` in turns, a 1 s window each per round, until every one's
 * last three windows agree (Note [Warm-ups in turns]); a peer already steady
 * keeps its turn so that it does not idle. One {@link WarmUp} per peer, in order.
 */
export async function warmInTurns(
  peers: ReadonlyArray<{ readonly target: LoadTarget; readonly serverPid: number | undefined }>,
  connections: number,
  postmasterPid: number,
  opts: WarmOptions = {},
): Promise<WarmUp[]> {
  const minWindows = opts.minWindows ?? 3;
  const maxWindows = opts.maxWindows ?? 10;
  const tolerance = opts.tolerance ?? 0.1;
  const windows: number[][] = peers.map(() => []);
  const isSteady = (w: readonly number[]): boolean => {
    const last = w.slice(-3);
    if (last.length < 3) return false;
    const mid = [...last].sort((a, b) => a - b)[1] ?? 0;
    return mid > 0 && last.every((x) => Math.abs(x - mid) / mid <= tolerance);
  };
  for (let round = 0; round < maxWindows; round++) {
    for (const [i, p] of peers.entries()) {
      const r = await runLoad(p.target, { connections, seconds: 1 }, p.serverPid, postmasterPid);
      windows[i]?.push(r.rps);
    }
    if (round + 1 >= minWindows && windows.every(isSteady)) break;
  }
  return windows.map((w) => ({ windows: w, steady: isSteady(w) }));
}
