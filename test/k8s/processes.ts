/**
 * Processes the k8s tests run: an engine on a fixed port (so it can be stopped and started again
 * at the same URL, for the outage test) and controller replicas (the real entry point,
 * controller/main.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '../support/eventually.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A child process with its output. */
export interface Proc {
  readonly child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function run(args: readonly string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer): void => {
    out += c.toString();
    if (out.length > 400_000) out = out.slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Starts `engine serve` on a given port (with extra environment, e.g. an action handler's URL) and waits for /healthz. */
export async function startEngineAt(port: number, args: readonly string[], env: Record<string, string> = {}): Promise<Proc> {
  const p = run(['engine/main.ts', 'serve', '--server-host', '127.0.0.1', '--server-port', String(port), ...args], env);
  try {
    await eventually(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status < 500, {
      what: `the engine on port ${port} to answer /healthz`,
      timeoutMs: 30_000,
      intervalMs: 100,
      context: p.output,
      giveUp: () => (p.child.exitCode === null ? undefined : `the engine exited with ${p.child.exitCode}`),
    });
  } catch (e) {
    await p.stop('SIGKILL');
    throw e;
  }
  return p;
}

/** Starts a controller replica. */
export function startController(kubeconfig: string, identity: string, extraEnv: Record<string, string> = {}): Proc {
  return run(['controller/main.ts'], {
    KUBECONFIG: kubeconfig,
    POD_NAME: identity,
    POD_NAMESPACE: 'graphql-engine-system',
    HEALTH_PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'debug',
    ENGINE_TIMEOUT_MS: '3000',
    // Long enough to ride out the apiserver restart test; handover in the tests is by release.
    LEASE_DURATION_SECONDS: '40',
    RENEW_DEADLINE_MS: '30000',
    ...extraEnv,
  });
}
