/**
 * Engine as a benchmark peer: `node [nodeArgs] engine/main.ts serve` in its
 * own process (nodeArgs lets the profiler pass `--cpu-prof`), ready when
 * /healthz answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../support/engine-process.ts';
import { ROOT } from './process.ts';

/** A running engine. */
export interface BenchEngine {
  readonly url: string;
  readonly child: ChildProcess;
  /** Milliseconds from spawn until /healthz answered. */
  readonly startMs: number;
  /** SIGTERM, wait for a clean exit (a CPU profile is written then). */
  stop(): Promise<void>;
}

/** Where the engine runs from: this checkout, unless `--engine-root` named another (a git worktree of an older commit, for before/after runs). */
let engineRoot = ROOT;

/** Runs the engine from the checkout at `dir` (it needs node_modules, e.g. a symlink to this one's). */
export function setEngineRoot(dir: string): void {
  engineRoot = dir;
}

/** Starts the engine on `databaseUrl` (no admin secret: role headers choose the role). */
export async function startEngine(databaseUrl: string, nodeArgs: readonly string[] = [], extraEnv: Record<string, string> = {}): Promise<BenchEngine> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...nodeArgs, 'engine/main.ts', 'serve', '--server-host', '127.0.0.1', '--server-port', String(port), '--database-url', databaseUrl, '--log-level', 'warn'],
    { cwd: engineRoot, env: { PATH: process.env['PATH'] ?? '', ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`engine exited with ${child.exitCode}: ${out}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`engine did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const startMs = performance.now() - started;
  return {
    url,
    child,
    startMs,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}
