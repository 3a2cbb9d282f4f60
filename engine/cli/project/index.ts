/** The project commands' entry (engine/main.ts routes `init`, `metadata`, `migrate`, `seed`, `deploy` here). */
export { PROJECT_COMMANDS, runProjectCommand } from './commands.ts';
