/**
 * Bounds on how deeply one request may nest, checked while it is turned into
 * IR (on a plan-cache miss only).
 *
 * Note [Depth bounds]
 * Every stage of a request recurses on nesting: graphql-js coercing a
 * variable, to-ir, the SQL compiler, PostgreSQL's parser. Unbounded, a
 * 5,000-deep `where` variable overflowed the stack (answered as a bare
 * "Maximum call stack size exceeded"), a 1,000-deep selection reached
 * PostgreSQL and failed there ("memory exhausted", `unexpected`), and a
 * 5,000-deep permission filter answered 500 (issue 12, point 7). The bounds
 * are far above anything written by hand, low enough that each level costs
 * little everywhere after:
 * - selection sets: 100 levels of fields (a relationship or computed-field
 *   level each); the per-role `depth_limit` of the API limits, when set, is
 *   lower and checked on its own;
 * - boolean expressions (`where`, `_and`/`_or` elements, `_not`,
 *   relationships): 100 levels; permission rules have the same bound,
 *   MAX_PERMISSION_DEPTH in catalog/stages/permissions.ts;
 * - anything deeper than graphql-js can coerce or validate (a stack
 *   overflow there) is refused as nested too deeply (execute/validate.ts,
 *   execute/graphql-service.ts).
 * Each refusal is `validation-failed` with the path of the level that broke
 * the bound.
 */
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import type { ToIrContext } from './context.ts';

/** The deepest selection set one request may hold. */
export const MAX_SELECTION_DEPTH = 100;
/** The deepest boolean expression (`where`) one request may hold. */
export const MAX_BOOL_EXP_DEPTH = 100;

/** Runs `fn` one level deeper in `which`, refusing a level past its bound. */
export function deeper<T>(ctx: ToIrContext, which: 'selection' | 'boolExp', path: string, fn: () => T): T {
  const max = which === 'selection' ? MAX_SELECTION_DEPTH : MAX_BOOL_EXP_DEPTH;
  if (ctx.depth[which] >= max) {
    const what = which === 'selection' ? 'the selection set' : 'the boolean expression';
    throw new EngineError(ErrorCode.ValidationFailed, `${what} is nested more than ${max} levels deep`, { path });
  }
  ctx.depth[which] += 1;
  try {
    return fn();
  } finally {
    ctx.depth[which] -= 1;
  }
}
