/**
 * The small JSON path language of v2's `claims_namespace_path` and
 * `claims_map`: `$`, `.key`, `['key']` / `["key"]`, `[0]`.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** A parsed path: object keys and array indexes from the root. */
export type JsonPath = readonly (string | number)[];

/** Parses a path like `$.hasura['x-claims'][0]`; throws invalid-configuration when malformed. */
export function parseJsonPath(text: string): JsonPath {
  if (!text.startsWith('$')) throw bad(text);
  const out: (string | number)[] = [];
  let i = 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      const m = /^[^.[\]]+/.exec(text.slice(i + 1));
      if (m === null) throw bad(text);
      out.push(m[0]);
      i += 1 + m[0].length;
    } else if (c === '[') {
      const rest = text.slice(i);
      const quoted = /^\[\s*(['"])(.*?)\1\s*\]/.exec(rest);
      const index = /^\[\s*(\d+)\s*\]/.exec(rest);
      if (quoted?.[2] !== undefined) {
        out.push(quoted[2]);
        i += quoted[0].length;
      } else if (index?.[1] !== undefined) {
        out.push(Number(index[1]));
        i += index[0].length;
      } else throw bad(text);
    } else throw bad(text);
  }
  return out;
}

/** The value at `path` in `value`, or undefined when any step is missing. */
export function readJsonPath(value: unknown, path: JsonPath): unknown {
  let cur: unknown = value;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[step];
    } else {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
      cur = (cur as Record<string, unknown>)[step];
    }
  }
  return cur;
}

function bad(text: string): EngineError {
  return new EngineError(ErrorCode.InvalidConfiguration, `invalid JSON path "${text}"`);
}
