/**
 * What a metadata API body may hold beyond being JSON: well-formed strings
 * and bounded nesting. Both are checked up front, with the path of the
 * offending value, because both failed late with a 500 (issue 12, point 7):
 * - `JSON.parse` accepts a `"\ud800"` escape and yields a string no UTF-8
 *   text (nor PostgreSQL's json) can hold; a role name holding one passed
 *   every check and failed storing the metadata; so did a NUL character
 *   (`"\u0000"`), which no PostgreSQL text or jsonb value holds;
 * - a permission filter nested 5,000 deep overflowed the stack writing the
 *   answer (which echoes the definition). The bound, MAX_METADATA_DEPTH, is
 *   far above what the deepest rule the catalog accepts needs
 *   (MAX_PERMISSION_DEPTH levels of `{"_and": [...]}`, two JSON levels
 *   each): Note [Depth bounds] in graphql/to-ir/depth.ts.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** The deepest JSON nesting (objects and arrays) a metadata body may hold. */
export const MAX_METADATA_DEPTH = 500;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NUL = '\u0000';

function stringProblem(s: string, what: string): string | null {
  if (LONE_SURROGATE.test(s)) return `invalid ${what}: a lone UTF-16 surrogate is not valid Unicode`;
  if (s.includes(NUL)) return `invalid ${what}: the NUL character (\\u0000) cannot be stored`;
  return null;
}

/** Any character {@link stringProblem} looks at: strings without one (nearly all) need no closer look. */
const SUSPECT = /[\uD800-\uDFFF\u0000]/;

/**
 * Whether {@link metadataBodyProblem} finds something, without the paths.
 * Note [Body check without paths]: a path string and a tuple for every value
 * of a 3 MiB replace_metadata body (2,000 tables × 10 roles) were 4–14% of
 * the call's CPU (`node test/bench/replace-profile.ts 2000 10 1`,
 * metadataBodyProblem); the paths are only needed for the one value refused,
 * so they are made by a second walk, in the same order, only then.
 */
function anyProblem(value: unknown): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (depths.length > 0) {
    const v = values.pop();
    const depth = depths.pop() as number;
    if (typeof v === 'string') {
      if (SUSPECT.test(v) && stringProblem(v, 'string') !== null) return true;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_METADATA_DEPTH) return true;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        values.push(v[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const k of Object.keys(v)) {
      if (SUSPECT.test(k) && stringProblem(k, 'key') !== null) return true;
      values.push((v as Record<string, unknown>)[k]);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** Why `value` cannot be a metadata body, with the JSON path of the offending value, or null. */
export function metadataBodyProblem(value: unknown): { readonly path: string; readonly message: string } | null {
  if (!anyProblem(value)) return null;
  // Iterative: the body may be nested deeper than the stack allows.
  const stack: Array<readonly [unknown, string, number]> = [[value, '$', 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, p, depth] = top;
    if (typeof v === 'string') {
      const bad = stringProblem(v, 'string');
      if (bad !== null) return { path: p, message: bad };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_METADATA_DEPTH) return { path: p, message: `the body is nested more than ${MAX_METADATA_DEPTH} levels deep` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${p}[${i}]`, depth + 1]);
      continue;
    }
    for (const [k, child] of Object.entries(v)) {
      const bad = stringProblem(k, 'key');
      if (bad !== null) return { path: p, message: bad };
      stack.push([child, `${p}.${k}`, depth + 1]);
    }
  }
  return null;
}

/** Throws `parse-failed` (400) at the path of what {@link metadataBodyProblem} finds. */
export function assertMetadataBody(value: unknown): void {
  const bad = metadataBodyProblem(value);
  if (bad !== null) throw new EngineError(ErrorCode.ParseFailed, bad.message, { path: bad.path, status: 400 });
}
