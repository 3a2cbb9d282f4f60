// The `engine` command line as a user runs it (`node engine/main.ts ...` in a child process), and
// the files it writes, for the CLI tests.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (where engine/main.ts is). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How a run of the command line ended. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `engine <args>` in `cwd` with only `env` (and PATH) set; resolves when it has ended and all its output is read. */
export async function engineCli(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'engine/main.ts'), ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every file under `dir`, path relative to `dir` → text, in path order. */
export async function filesUnder(dir: string): Promise<Map<string, string>> {
  const paths: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) paths.push(path.relative(dir, path.join(e.parentPath, e.name)));
  const out = new Map<string, string>();
  for (const p of paths.sort()) out.set(p, await readFile(path.join(dir, p), 'utf8'));
  return out;
}
