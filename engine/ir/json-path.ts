/**
 * Note [JSON path argument]
 * v2's `path` argument of json/jsonb columns (`data(path: "$.a.b[0]")`): an
 * optional `$`, then elements `.key`, `[index]`, `['key']` or `["key"]`; the
 * first key may also be bare (`a.b`). Keys of letters, digits, `_` and `-`
 * unless quoted in brackets. The path is parsed here into its elements, sent
 * as one text[] parameter and applied with `#>` by the dialect: no path text
 * ever reaches SQL. `$` alone is the whole value; a missing key reads null.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

const KEY = /^[A-Za-z0-9_-]+/;
const INDEX = /^\[(\d+)\]/;
const QUOTED = /^\[(?:'([^']*)'|"([^"]*)")\]/;

/** The elements of a v2 JSON path (indexes as decimal strings); throws v2's parse-failed error at `errorPath`. */
export function parseJsonPath(text: string, errorPath: string): string[] {
  const fail = (): never => {
    throw new EngineError(
      ErrorCode.ParseFailed,
      `parse json path error: ${text}. Accept letters, digits, underscore (_) or hyphen (-) only. Use single quotes enclosed in bracket (['...']) if there is any special character`,
      { path: errorPath },
    );
  };
  let rest = text.startsWith('$') ? text.slice(1) : text;
  const out: string[] = [];
  let first = true;
  while (rest.length > 0) {
    let m: RegExpExecArray | null;
    if (rest.startsWith('.')) {
      m = KEY.exec(rest.slice(1));
      if (m === null) return fail();
      out.push(m[0]);
      rest = rest.slice(1 + m[0].length);
    } else if ((m = INDEX.exec(rest)) !== null) {
      out.push(String(Number(m[1])));
      rest = rest.slice(m[0].length);
    } else if ((m = QUOTED.exec(rest)) !== null) {
      out.push(m[1] ?? m[2] ?? '');
      rest = rest.slice(m[0].length);
    } else if (first && text[0] !== '$' && (m = KEY.exec(rest)) !== null) {
      out.push(m[0]);
      rest = rest.slice(m[0].length);
    } else {
      return fail();
    }
    first = false;
  }
  return out;
}
