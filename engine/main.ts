#!/usr/bin/env node
/**
 * The entry point of `engine ...`. `serve` first re-executes the process
 * with the engine's V8 flags (Note [Engine V8 settings] in cli/v8-flags.ts),
 * so this module imports nothing else statically: the command line
 * (run-cli.ts) and the engine's module graph load once, in the process that
 * serves.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execWithEngineV8Flags } from './cli/v8-flags.ts';

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  if (process.argv[2] === 'serve') execWithEngineV8Flags();
  const { runCli } = await import('./run-cli.ts');
  await runCli(process.argv.slice(2));
}
