/**
 * Peer processes: spawn a Node script that prints `READY <url>` once it
 * listens, read a process's resident memory, stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A running peer script. */
export interface PeerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Sends SIGTERM and waits for the exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/** Spawns `node <script>` with `env` and waits (up to 60 s) for its `READY <url>` line. */
export async function spawnPeer(script: string, env: Record<string, string>, nodeArgs: readonly string[] = []): Promise<PeerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${out}${err}`)), 60_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /READY (\S+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}: ${out}${err}`));
    });
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Resident set size of process `pid` in MiB (Linux /proc), or null when unknown. */
export async function rssMiB(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m?.[1] === undefined ? null : Number(m[1]) / 1024;
  } catch {
    return null;
  }
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/*
 * CPU readers: /proc/<pid>/task/<tid>/schedstat counts each thread's time on
 * a CPU in nanoseconds, where /proc/<pid>/stat counts 10 ms ticks. Idle
 * figures (a few ms of CPU in a 30 s window) are below the ticks'
 * resolution, so the nanosecond count is used where the kernel has it, the
 * ticks otherwise (and for children already reaped, which only their parent's
 * cutime/cstime remembers).
 */

/** CPU time in ms of every thread of `pid` from schedstat, or null when the kernel does not provide it. */
async function schedstatMs(pid: number): Promise<number | null> {
  let tasks: string[];
  try {
    tasks = await readdir(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let ns = 0;
  for (const tid of tasks) {
    try {
      const text = await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
      ns += Number(text.split(' ')[0]);
    } catch {
      // The thread ended, or no schedstat: a thread that ended takes its time with it either way.
    }
  }
  return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : null;
}

/** CPU time (user + system) of process `pid` in ms (schedstat's nanoseconds, else /proc/<pid>/stat ticks); null when unknown. */
export async function cpuMs(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  const precise = await schedstatMs(pid);
  if (precise !== null) return precise;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** CPU time of one PostgreSQL server in ms: the postmaster `postmasterPid` and its children (backends, workers). */
export async function postgresCpuMs(postmasterPid: number): Promise<number> {
  let total = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const own = Number(entry) === postmasterPid;
      if (!own && Number(fields[1]) !== postmasterPid) continue;
      const precise = await schedstatMs(Number(entry));
      total += precise ?? (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      // Children already exited and reaped (backends of closed connections): only in ticks.
      if (own) total += (Number(fields[13]) + Number(fields[14])) * TICK_MS;
    } catch {
      // the process went away
    }
  }
  return total;
}

/**
 * CPU ms of each process of one PostgreSQL server, by process title with the client port and state
 * removed (`postgres: checkpointer`, `postgres: postgres db 127.0.0.1`), plus `exited children` (those
 * reaped, from the postmaster's cutime/cstime in ticks). Differences of two readings tell what ran.
 */
export async function postgresCpuByProcess(postmasterPid: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const add = (k: string, ms: number): void => void out.set(k, (out.get(k) ?? 0) + ms);
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const own = Number(entry) === postmasterPid;
      if (!own && Number(fields[1]) !== postmasterPid) continue;
      const title = (await readFile(`/proc/${entry}/cmdline`, 'utf8'))
        .replaceAll('\0', ' ')
        .trim()
        .replace(/\(\d+\)/, '')
        .replace(/ (idle|idle in transaction|active|SELECT|UPDATE|INSERT|LISTEN|waiting)( .*)?$/, '');
      const precise = await schedstatMs(Number(entry));
      add(own ? 'postmaster' : title, precise ?? (Number(fields[11]) + Number(fields[12])) * TICK_MS);
      if (own) add('exited children', (Number(fields[13]) + Number(fields[14])) * TICK_MS);
    } catch {
      // the process went away
    }
  }
  return out;
}

/**
 * Watches the children of a PostgreSQL server every `everyMs` until `stop()`; returns the titles of those
 * that started and ended in between (autovacuum workers, short connections), which only cutime counts.
 */
export function watchShortLivedChildren(postmasterPid: number, everyMs = 100): { stop(): Promise<string[]> } {
  const seen = new Map<number, string>();
  let first: Set<number> | null = null;
  const scan = async (): Promise<Set<number>> => {
    const alive = new Set<number>();
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[1]) !== postmasterPid) continue;
        alive.add(Number(entry));
        if (!seen.has(Number(entry)))
          seen.set(
            Number(entry),
            (await readFile(`/proc/${entry}/cmdline`, 'utf8'))
              .replaceAll('\0', ' ')
              .trim()
              .replace(/\(\d+\)/, ''),
          );
      } catch {
        // gone
      }
    }
    return alive;
  };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void scan()
      .then((a) => (first ??= a))
      .finally(() => (busy = false));
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      const last = await scan();
      return [...seen].filter(([pid]) => !(first?.has(pid) ?? false) && !last.has(pid)).map(([, t]) => t);
    },
  };
}
