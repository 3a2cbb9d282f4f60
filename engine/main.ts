#!/usr/bin/env node
/**
 * The entry point of `engine ...`. `serve` first re-executes the process
 * with the engine's V8 flags (Note [Engine V8 settings] in cli/v8-flags.ts),
 * so this module imports nothing else statically: the command line
 * (run-cli.ts) and the engine's module graph load once, in the process that
 * serves, with the module compile cache on (Note [Module compile cache] in
 * cli/compile-cache.ts).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { enableEngineCompileCache, flushEngineCompileCache } from './cli/compile-cache.ts';
import { defaultProductionMode, execWithEngineV8Flags } from './cli/v8-flags.ts';

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
  const serve = process.argv[2] === 'serve';
  if (serve) {
    // Before the re-execution, which passes the environment on: Note [graphql-js production mode].
    defaultProductionMode();
    execWithEngineV8Flags();
    enableEngineCompileCache();
  }
  const { runCli } = await import('./run-cli.ts');
  await runCli(process.argv.slice(2));
  // Serving: every module of the start is loaded (Note [Module compile cache]).
  if (serve) flushEngineCompileCache();
}
