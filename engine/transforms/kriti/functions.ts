/**
 * Kriti's function library: kriti-lang's basic functions plus v2's
 * `getSessionVariable`. Each takes one JSON value; a failure is a message the
 * evaluator turns into a `Function Error` at the call's span.
 */
import type { Json } from './ast.ts';

/** A Kriti function: one argument, a result or a thrown {@link FunctionFailure}. */
export type KritiFunction = (argument: Json) => Json;

/** Thrown by a function for a bad argument; the evaluator adds the position. */
export class FunctionFailure extends Error {}

function typeName(v: Json): string {
  if (v === null) return 'Null';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
    default:
      return 'Object';
  }
}

function expectString(name: string, v: Json): string {
  if (typeof v !== 'string') throw new FunctionFailure(`${name} expects a String, got ${typeName(v)}`);
  return v;
}

function isObject(v: Json): v is { [key: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** RFC 3986 unreserved characters stay; everything else is percent-encoded as UTF-8. */
export function escapeUri(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `toTitle`: the first letter of each word upper case, the rest lower case. */
function toTitle(s: string): string {
  return s.toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_m, pre: string, ch: string) => pre + ch.toUpperCase());
}

const BASIC: Readonly<Record<string, KritiFunction>> = {
  empty(v) {
    if (v === null) return true;
    if (typeof v === 'boolean') throw new FunctionFailure('empty: cannot define emptiness for a Boolean');
    if (typeof v === 'number') return v === 0;
    if (typeof v === 'string') return v.trim() === '';
    if (Array.isArray(v)) return v.length === 0;
    return Object.keys(v).length === 0;
  },
  length(v) {
    if (v === null) return 0;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'number') return v;
    if (typeof v === 'string') return [...v].length;
    if (Array.isArray(v)) return v.length;
    return Object.keys(v).length;
  },
  inverse(v) {
    if (v === null) return null;
    if (typeof v === 'boolean') return !v;
    if (typeof v === 'number') return 1 / v;
    if (typeof v === 'string') return [...v].reverse().join('');
    if (Array.isArray(v)) return [...v].reverse();
    return v;
  },
  head(v) {
    if (Array.isArray(v)) {
      if (v.length === 0) throw new FunctionFailure('head: empty array');
      return v[0] as Json;
    }
    if (typeof v === 'string') {
      const first = [...v][0];
      if (first === undefined) throw new FunctionFailure('head: empty string');
      return first;
    }
    throw new FunctionFailure(`head expects an Array or a String, got ${typeName(v)}`);
  },
  tail(v) {
    if (Array.isArray(v)) return v.slice(1);
    if (typeof v === 'string') return [...v].slice(1).join('');
    throw new FunctionFailure(`tail expects an Array or a String, got ${typeName(v)}`);
  },
  toCaseFold: (v) => expectString('toCaseFold', v).toLowerCase(),
  toLower: (v) => expectString('toLower', v).toLowerCase(),
  toUpper: (v) => expectString('toUpper', v).toUpperCase(),
  toTitle: (v) => toTitle(expectString('toTitle', v)),
  escapeUri: (v) => escapeUri(expectString('escapeUri', v)),
  toPairs(v) {
    if (!isObject(v)) throw new FunctionFailure(`toPairs expects an Object, got ${typeName(v)}`);
    return Object.entries(v).map(([k, x]) => [k, x]);
  },
  fromPairs(v) {
    const shape = 'fromPairs expects an Array of the shape [[k1, v1], [k2, v2], ...] with String keys';
    if (!Array.isArray(v)) throw new FunctionFailure(shape);
    const out: { [key: string]: Json } = {};
    for (const pair of v) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') throw new FunctionFailure(shape);
      out[pair[0]] = pair[1] as Json;
    }
    return out;
  },
  removeNulls(v) {
    if (!Array.isArray(v)) throw new FunctionFailure(`removeNulls expects an Array, got ${typeName(v)}`);
    return v.filter((x) => x !== null);
  },
  concat(v) {
    if (!Array.isArray(v)) throw new FunctionFailure(`concat expects an Array, got ${typeName(v)}`);
    if (v.every((x) => Array.isArray(x))) return (v as Json[][]).flat(1);
    if (v.every((x) => typeof x === 'string')) return (v as string[]).join('');
    if (v.every(isObject)) return Object.assign({}, ...(v as Array<{ [key: string]: Json }>)) as Json;
    throw new FunctionFailure('concat expects an Array of Arrays, of Strings or of Objects');
  },
  not(v) {
    if (typeof v !== 'boolean') throw new FunctionFailure(`not expects a Boolean, got ${typeName(v)}`);
    return !v;
  },
};

/** `size` is kriti-lang's name for `length`. */
const LIBRARY: Readonly<Record<string, KritiFunction>> = { ...BASIC, size: BASIC['length'] as KritiFunction };

/**
 * The functions a transform template sees: the basic library plus
 * `getSessionVariable(name)`, which reads the request's session variables
 * case-insensitively (v2's session variable names are case-insensitive).
 */
export function transformFunctions(sessionVariables: Readonly<Record<string, string>> | null): Readonly<Record<string, KritiFunction>> {
  return {
    ...LIBRARY,
    getSessionVariable(v) {
      const name = expectString('getSessionVariable', v).toLowerCase();
      if (sessionVariables === null) throw new FunctionFailure('getSessionVariable: no session variables are available here');
      for (const [k, x] of Object.entries(sessionVariables)) if (k.toLowerCase() === name) return x;
      throw new FunctionFailure(`getSessionVariable: session variable "${name}" not found`);
    },
  };
}

/** The basic library without session functions. */
export const basicFunctions: Readonly<Record<string, KritiFunction>> = LIBRARY;

export { typeName };
