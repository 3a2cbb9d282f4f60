/**
 * Literal values of permission rules checked against their column's type when
 * the permission is created, so `{"id": {"_eq": "abc"}}` on an integer column
 * is refused then rather than failing every query of the role later.
 *
 * Note [Permission literals]
 * Values are sent to the database as parameters: strings and numbers as
 * text, booleans as `true`/`false`, json/jsonb values JSON-encoded (see
 * ir/value.ts). Each check below accepts exactly what PostgreSQL's input
 * function of the family accepts for such text, as far as it can be decided
 * without the database (one round trip per permission would make a
 * `replace_metadata` of thousands of permissions slow, and the catalog build
 * is pure): integers with their range, numerics (with NaN and infinities),
 * booleans as `boolin` reads them, uuids as `uuid_in` reads them, values of a
 * Postgres enum among its labels. Dates and times are checked loosely (no
 * booleans, objects or lists; a number only for an interval; a string must
 * hold a digit or be one of the special words): their input syntax is too
 * rich to mirror, and a false refusal would be worse than a late error.
 * Session variables (`x-engine-*`), null and array columns are not checked;
 * json/jsonb take any JSON value. Other types (text, domains, ranges, ...)
 * are not checked. Which family a type is in (and an integer's range) is
 * the source's backend's answer (ScalarInfo.literal in backends/backend.ts).
 */
import { isSessionVariableName } from '../auth/headers.ts';
import type { ScalarInfo } from '../backends/backend.ts';
import type { ColumnInfo } from './types.ts';
const DATE_TIME_WORDS = new Set(['epoch', 'infinity', '-infinity', 'now', 'today', 'tomorrow', 'yesterday', 'allballs']);

/** Whether `v` is a session variable reference (checked at request time, not here); v2's `x-hasura-*` too. */
export function isSessionVariable(v: unknown): boolean {
  return isSessionVariableName(v);
}

function asText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

function integerProblem(v: unknown, range: readonly [bigint, bigint]): string | null {
  const text = typeof v === 'number' ? (Number.isInteger(v) ? BigInt(v).toString() : null) : typeof v === 'string' ? v.trim() : null;
  // Decimal, and (PostgreSQL 16+) 0x/0o/0b prefixes and underscores between digits.
  const m = text === null ? null : /^([+-]?)(0x[0-9a-f]+(?:_?[0-9a-f]+)*|0o[0-7]+(?:_?[0-7]+)*|0b[01]+(?:_?[01]+)*|\d+(?:_\d+)*)$/i.exec(text);
  if (m === null) return 'an integer';
  const n = BigInt((m[2] ?? '').replaceAll('_', '')) * (m[1] === '-' ? -1n : 1n);
  return n < range[0] || n > range[1] ? `an integer between ${range[0]} and ${range[1]}` : null;
}

function numericProblem(v: unknown): string | null {
  const text = asText(v);
  if (text === null) return 'a number';
  const t = text.trim();
  if (/^[+-]?(\d+(_\d+)*\.?(\d+(_\d+)*)?|\.\d+(_\d+)*)(e[+-]?\d+)?$/i.test(t) || /^[+-]?(nan|inf|infinity)$/i.test(t)) return null;
  return 'a number';
}

/** PostgreSQL's boolin: a unique prefix of true/false/yes/no, on/off, 1/0 (any case, trimmed). */
function booleanProblem(v: unknown): string | null {
  if (typeof v === 'boolean') return null;
  const text = asText(v);
  if (text === null) return 'a boolean';
  const t = text.trim().toLowerCase();
  if (t === '1' || t === '0') return null;
  if (t.length >= 1 && ('true'.startsWith(t) || 'false'.startsWith(t) || 'yes'.startsWith(t) || 'no'.startsWith(t))) return null;
  if (t.length >= 2 && ('on'.startsWith(t) || 'off'.startsWith(t))) return null;
  return 'a boolean';
}

/** PostgreSQL's uuid_in: 32 hex digits, an optional hyphen after any group of four, optionally in braces. */
function uuidProblem(v: unknown): string | null {
  if (typeof v !== 'string') return 'a uuid';
  const inner = v.startsWith('{') && v.endsWith('}') ? v.slice(1, -1) : v;
  return /^[0-9a-f]{4}(-?[0-9a-f]{4}){7}$/i.test(inner) ? null : 'a uuid';
}

function dateTimeProblem(v: unknown, interval: boolean): string | null {
  const what = interval ? 'an interval' : 'a date or time';
  if (typeof v === 'number') return interval && Number.isFinite(v) ? null : what;
  if (typeof v !== 'string') return what;
  const t = v.trim().toLowerCase();
  return /\d/.test(t) || DATE_TIME_WORDS.has(t) ? null : what;
}

/**
 * Why `value` cannot be a value of `column` (`"abc"` is not an integer), as
 * "expects ...", or null when it can or cannot be decided here.
 */
export function literalProblem(column: ColumnInfo, value: unknown, scalar: (dbType: string) => ScalarInfo): string | null {
  if (value === null || value === undefined || isSessionVariable(value) || column.elementType !== null) return null;
  const t = column.dbType;
  const literal = scalar(t).literal;
  let expected: string | null = null;
  if (literal.kind === 'json') return null;
  else if (literal.kind === 'integer') expected = integerProblem(value, [literal.min, literal.max]);
  else if (literal.kind === 'decimal') expected = numericProblem(value);
  else if (literal.kind === 'boolean') expected = booleanProblem(value);
  else if (literal.kind === 'uuid') expected = uuidProblem(value);
  else if (literal.kind === 'datetime') expected = dateTimeProblem(value, false);
  else if (literal.kind === 'interval') expected = dateTimeProblem(value, true);
  else if (column.typeCategory === 'enum' && column.enumLabels !== null) {
    expected = typeof value === 'string' && column.enumLabels.includes(value) ? null : `one of ${column.enumLabels.map((l) => `"${l}"`).join(', ')}`;
  }
  if (expected === null) return null;
  return `expects ${expected} for column "${column.name}" of type ${t}, not ${JSON.stringify(value)}`;
}
