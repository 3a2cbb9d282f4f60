/**
 * The command line shared by the profile benches that compare two checkouts
 * (start-profile.ts, replace-profile.ts): `[tables] [roles] [rounds] [dir]
 * [--engine-root <after>] [--before-root <before>] [--no-prof]`.
 */
import { ROOT } from './process.ts';

export interface ProfileArgs {
  readonly afterRoot: string;
  readonly beforeRoot: string | null;
  readonly profile: boolean;
  readonly tables: number;
  readonly roles: number;
  readonly rounds: number;
  readonly dir: string;
}

/** Reads `args`; `defaultDir` is where profiles go unless a fourth positional names it. */
export function profileArgs(args: readonly string[], defaultDir: string): ProfileArgs {
  const rootAt = args.indexOf('--engine-root');
  const beforeAt = args.indexOf('--before-root');
  const positional = args.filter((a, i) => !a.startsWith('--') && (rootAt === -1 || i !== rootAt + 1) && (beforeAt === -1 || i !== beforeAt + 1));
  return {
    afterRoot: rootAt === -1 ? ROOT : (args[rootAt + 1] ?? '.'),
    beforeRoot: beforeAt === -1 ? null : (args[beforeAt + 1] ?? '.'),
    profile: !args.includes('--no-prof'),
    tables: Number(positional[0] ?? 2000),
    roles: Number(positional[1] ?? 10),
    rounds: Number(positional[2] ?? 2),
    dir: positional[3] ?? defaultDir,
  };
}
