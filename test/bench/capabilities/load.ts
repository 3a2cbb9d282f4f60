/**
 * Discovers and runs the capability cells of this folder (every `*.ts` but
 * the runner's own modules), one after another on the run's PostgreSQL.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CapabilityBench, CapabilityContext, CapabilityResult } from './types.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RUNNER_MODULES = new Set(['types.ts', 'load.ts', 'render.ts']);

/** The names of the cells present (file names without `.ts`), sorted. */
export async function capabilityNames(): Promise<string[]> {
  const files = await readdir(HERE);
  return files
    .filter((f) => f.endsWith('.ts') && !RUNNER_MODULES.has(f) && !f.endsWith('.test.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

/** One cell's outcome: its figures, or why it failed (a failed cell does not stop the others). */
export interface CapabilityOutcome {
  readonly name: string;
  readonly seconds: number;
  readonly result: CapabilityResult | null;
  readonly error: string | null;
}

/** Runs the named cells (all when `names` is null); unknown names are an error before anything runs. */
export async function runCapabilities(
  names: readonly string[] | null,
  ctx: Omit<CapabilityContext, 'log'>,
  log: (s: string) => void,
): Promise<CapabilityOutcome[]> {
  const present = await capabilityNames();
  const chosen = names ?? present;
  const unknown = chosen.filter((n) => !present.includes(n));
  if (unknown.length > 0) throw new Error(`unknown capability bench ${unknown.join(', ')}; present: ${present.join(', ') || 'none'}`);
  const outcomes: CapabilityOutcome[] = [];
  for (const name of chosen) {
    log(`\n== capability ${name}`);
    const started = performance.now();
    const mod = (await import(pathToFileURL(path.join(HERE, `${name}.ts`)).href)) as { default?: CapabilityBench };
    if (typeof mod.default !== 'function') throw new Error(`test/bench/capabilities/${name}.ts has no default export`);
    try {
      const result = await mod.default({ ...ctx, log: (s) => log(`   ${s}`) });
      outcomes.push({ name, seconds: (performance.now() - started) / 1000, result, error: null });
    } catch (e) {
      const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
      log(`   FAILED: ${error}`);
      outcomes.push({ name, seconds: (performance.now() - started) / 1000, result: null, error });
    }
  }
  return outcomes;
}
