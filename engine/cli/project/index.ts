/**
 * The project commands' entry (engine/run-cli.ts routes `init`, `metadata`, `migrate`, `seed`, `deploy`
 * here). Only the names are loaded with the server: the commands (commander, diff, yaml, the
 * metadata client) load when one runs, so `engine serve` does not carry them (~50 MiB of RSS and
 * ~140 ms of start-up measured with `node -e "import('./engine/cli/project/commands.ts')"`).
 */
import type { runProjectCommand as RunProjectCommand } from './commands.ts';

/** The first words of argv that are project commands. */
export const PROJECT_COMMANDS: ReadonlySet<string> = new Set(['init', 'metadata', 'md', 'migrate', 'seed', 'seeds', 'sd', 'deploy', 'operator']);

/** Runs a project command; resolves with its exit code. */
export async function runProjectCommand(...args: Parameters<typeof RunProjectCommand>): Promise<number> {
  const { runProjectCommand: run } = await import('./commands.ts');
  return await run(...args);
}
