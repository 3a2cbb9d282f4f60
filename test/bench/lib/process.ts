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

/** CPU time (user + system) of process `pid` in ms, from /proc/<pid>/stat; null when unknown. */
export async function cpuMs(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
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
      if (Number(entry) === postmasterPid) {
        // Own time plus that of children already exited and reaped (backends of closed connections).
        total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
      } else if (Number(fields[1]) === postmasterPid) {
        total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      }
    } catch {
      // the process went away
    }
  }
  return total;
}
