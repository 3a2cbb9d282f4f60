/**
 * What every stage of build.ts returns: its output and the objects it left
 * out, each stage its own list (see Note [Catalog stages] in build.ts).
 */
import type { InconsistentObject } from '../types.ts';

/** A stage's output and the objects it found inconsistent, in metadata order. */
export interface StageResult<T> {
  readonly output: T;
  readonly inconsistencies: readonly InconsistentObject[];
}
