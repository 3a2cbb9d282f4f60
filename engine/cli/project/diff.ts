/**
 * `metadata diff`: the metadata the engine has against the project's, as unified diffs of the
 * files each would be written as (the `diff` package), so a change reads as it would in git.
 */
import { createTwoFilesPatch } from 'diff';
import { paint, type Io } from './output.ts';

/** One changed file. */
export interface FileDiff {
  readonly file: string;
  readonly change: 'added' | 'removed' | 'changed';
  readonly patch: string;
}

/** The files that differ between `from` (the engine's) and `to` (the project's). */
export function diffFiles(from: ReadonlyMap<string, string>, to: ReadonlyMap<string, string>): FileDiff[] {
  const names = [...new Set([...from.keys(), ...to.keys()])].sort();
  const out: FileDiff[] = [];
  for (const file of names) {
    const a = from.get(file);
    const b = to.get(file);
    if (a === b) continue;
    const change = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
    const patch = createTwoFilesPatch(`engine/${file}`, `project/${file}`, a ?? '', b ?? '', undefined, undefined, { context: 3 });
    out.push({ file, change, patch });
  }
  return out;
}

/** Prints diffs, red/green on a terminal. */
export function printDiffs(io: Io, diffs: readonly FileDiff[]): void {
  for (const d of diffs) {
    for (const line of d.patch.split('\n')) {
      if (line.startsWith('===')) continue;
      if (line.startsWith('+++') || line.startsWith('---')) io.out(paint(io, 'bold', line));
      else if (line.startsWith('+')) io.out(paint(io, 'green', line));
      else if (line.startsWith('-')) io.out(paint(io, 'red', line));
      else if (line.startsWith('@@')) io.out(paint(io, 'cyan', line));
      else if (line !== '') io.out(line);
    }
  }
}
