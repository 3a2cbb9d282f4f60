/**
 * Join keys as values of their type, for matching a parent's join values to
 * a table's rows and for writing them into a remote's arguments.
 *
 * Note [Join keys by type]
 * The two sides of a join speak different dialects of one value: a remote's
 * `Float` field says `1.0` where the `int` column says `1`, a `numeric(5,1)`
 * column reads back as `1.0` where a remote's `Int` says `1`, a jsonb key
 * comes back with its keys reordered. Keys compared as text missed those
 * matches, and a key the target type cannot hold (`2.5` for an `int`
 * column, `"abc"` for a uuid) was bound as is and failed the whole
 * statement. So each key is brought to one canonical text of the target
 * column's type (ir.JoinKeyType, from the column's scalar): integers and
 * numbers as plain decimals without exponent, leading or trailing zeros
 * (exact from their text: a bigint or numeric key keeps every digit), booleans as
 * `true`/`false`, JSON as text with sorted keys, UUIDs lower case with
 * hyphens; a key that is no value of the type (a fraction for an integer
 * column, a number out of its range) matches nothing and is not bound. The
 * same text is what is bound to the statement (`column = ANY($keys)`, cast
 * there by PostgreSQL) and what the rows' key columns (read as text) are
 * brought to, so the match is by value in both places. Other types
 * (timestamps, text, enums) compare as text. Remote arguments are written the
 * same way by the argument's GraphQL type: an `Int` argument takes an
 * integer in 32 bits, a `Float` a finite number; a key that cannot be one
 * gets null without asking the remote.
 */
import type * as ir from '../ir/index.ts';

/** A decimal: its digits without leading or trailing zeros ("" for zero) and exponent. */
interface Decimal {
  readonly negative: boolean;
  readonly digits: string;
  readonly exponent: number;
}

const DECIMAL = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

/** Exponents beyond this are no key any column holds. */
const MAX_EXPONENT = 1000;

function parseDecimal(text: string): Decimal | null {
  const m = DECIMAL.exec(text);
  if (m === null) return null;
  const int = m[2] ?? '';
  const frac = m[3] ?? '';
  if (int.length + frac.length === 0) return null;
  let digits = (int + frac).replace(/^0+/, '');
  let exponent = Number(m[4] ?? '0') - frac.length;
  const trimmed = digits.replace(/0+$/, '');
  exponent += digits.length - trimmed.length;
  digits = trimmed;
  if (digits.length === 0) return { negative: false, digits: '', exponent: 0 };
  if (Math.abs(exponent) > MAX_EXPONENT) return null;
  return { negative: m[1] === '-', digits, exponent };
}

/** A decimal as plain text: `-12.5`, `0.001`, `1000`. */
function plain(d: Decimal): string {
  if (d.digits === '') return '0';
  const sign = d.negative ? '-' : '';
  if (d.exponent >= 0) return sign + d.digits + '0'.repeat(d.exponent);
  const point = d.digits.length + d.exponent;
  return point > 0 ? `${sign}${d.digits.slice(0, point)}.${d.digits.slice(point)}` : `${sign}0.${'0'.repeat(-point)}${d.digits}`;
}

/** A number's text: JSON numbers and numeric strings alike. */
function numberText(v: unknown): string | null {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  if (typeof v === 'string') return v;
  return null;
}

const INT_BITS: Readonly<Record<string, bigint>> = { int16: 15n, int32: 31n, int64: 63n };

/** Integers already in canonical text (no sign but `-`, no leading zero), short enough to be exact doubles. */
const PLAIN_INTEGER = /^(?:0|-?[1-9]\d{0,14})$/;

/** A safe integer: from a JSON number or a plain integer's text (the common key, taken without parsing a decimal). */
function safeInteger(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : null;
  return typeof v === 'string' && PLAIN_INTEGER.test(v) ? Number(v) : null;
}

/** An integer of `bits` (sign excluded) as plain text, or null. */
export function canonicalInteger(v: unknown, bits: bigint): string | null {
  const fast = safeInteger(v);
  if (fast !== null) {
    const bound = 2 ** Number(bits);
    return fast >= -bound && fast < bound ? String(fast) : null;
  }
  const t = numberText(v);
  const d = t === null ? null : parseDecimal(t);
  if (d === null || d.exponent < 0) return null;
  const text = plain(d);
  const n = BigInt(text);
  const bound = 1n << bits;
  return n >= -bound && n < bound ? text : null;
}

/** A finite number as plain decimal text, or null. */
export function canonicalNumber(v: unknown): string | null {
  const fast = safeInteger(v);
  if (fast !== null) return String(fast);
  const t = numberText(v);
  const d = t === null ? null : parseDecimal(t);
  return d === null ? null : plain(d);
}

/** A boolean's text: JSON's, PostgreSQL's `t`/`f`, or SQL Server's bit as text (`CONVERT(NVARCHAR, bit)` is `1`/`0`). */
function canonicalBoolean(v: unknown): string | null {
  if (v === true || v === 'true' || v === 't' || v === '1') return 'true';
  if (v === false || v === 'false' || v === 'f' || v === '0') return 'false';
  return null;
}

/** A JSON value as text with object keys sorted (numbers as JSON writes them). */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const UUID = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

/** A parent's join value (a JSON value) as the canonical text of `type`; null: it matches nothing. */
export function canonicalKey(v: unknown, type: ir.JoinKeyType): string | null {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'int16':
    case 'int32':
    case 'int64':
      return canonicalInteger(v, INT_BITS[type] as bigint);
    case 'number':
      // NaN and ±Infinity are float and numeric values; PostgreSQL writes them as JSON strings.
      if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return v;
      return canonicalNumber(v);
    case 'boolean':
      return canonicalBoolean(v);
    case 'json':
      return canonicalJson(v);
    case 'uuid': {
      const m = typeof v === 'string' ? UUID.exec(v) : null;
      return m === null ? null : m.slice(1, 6).join('-').toLowerCase();
    }
    case 'text':
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/** A row's key column read as text, as the canonical text of `type`. */
export function canonicalRowKey(text: unknown, type: ir.JoinKeyType): string | null {
  if (type !== 'json' || typeof text !== 'string') return canonicalKey(text, type);
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return null;
  }
}
