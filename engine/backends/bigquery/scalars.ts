/**
 * The GraphQL face of BigQuery's types (v2's BigQuery `ScalarType`): names,
 * operators, aggregate classes, and how values travel. Column types are the
 * canonical GoogleSQL names introspect.ts gives (`INT64`, not the REST API's
 * `INTEGER`); nested and repeated fields are `STRUCT` and `ARRAY`.
 *
 * Note [BigQuery output typing]
 * v2 answers INT64, NUMERIC and BIGNUMERIC values as JSON strings (its
 * Int64/Decimal/BigDecimal are text), FLOAT64 as numbers. TO_JSON_STRING would
 * print them as numbers, so the select compiler casts every value of a
 * {@link isStringNumeric} type to STRING before the JSON is built, also the
 * aggregates whose result is one (count, sum/max/min of those types).
 */
import type { LiteralClass, ScalarInfo, TypeNames } from '../backend.ts';

/** The REST API's legacy names → GoogleSQL names. */
const CANONICAL: Readonly<Record<string, string>> = {
  INTEGER: 'INT64',
  FLOAT: 'FLOAT64',
  BOOLEAN: 'BOOL',
  RECORD: 'STRUCT',
  DECIMAL: 'NUMERIC',
  BIGDECIMAL: 'BIGNUMERIC',
};

/** The GoogleSQL name of a type as the REST API or a user spells it. */
export function canonicalType(t: string): string {
  const u = t.toUpperCase();
  return CANONICAL[u] ?? u;
}

/** Types whose values v2 sends as JSON strings (Note [BigQuery output typing]). */
export function isStringNumeric(dbType: string): boolean {
  const t = canonicalType(dbType);
  return t === 'INT64' || t === 'NUMERIC' || t === 'BIGNUMERIC';
}

const INT64: LiteralClass = { kind: 'integer', min: -(2n ** 63n), max: 2n ** 63n - 1n };

function info(graphqlName: string, builtin: boolean, rest: Partial<ScalarInfo>): ScalarInfo {
  return {
    graphqlName,
    builtin,
    encoding: 'plain',
    operators: 'equality',
    numeric: false,
    ordered: true,
    bigNumeric: false,
    literal: { kind: 'other' },
    textual: false,
    json: false,
    sortable: true,
    ...rest,
  };
}

const SCALARS: Readonly<Record<string, ScalarInfo>> = {
  STRING: info('String', true, { operators: 'text', textual: true }),
  BYTES: info('Bytes', false, {}),
  INT64: info('Int', true, { numeric: true, bigNumeric: true, literal: INT64 }),
  FLOAT64: info('Float', true, { numeric: true, literal: { kind: 'decimal' } }),
  NUMERIC: info('Decimal', false, { numeric: true, bigNumeric: true, literal: { kind: 'decimal' } }),
  BIGNUMERIC: info('BigDecimal', false, { numeric: true, bigNumeric: true, literal: { kind: 'decimal' } }),
  BOOL: info('Boolean', true, { literal: { kind: 'boolean' } }),
  DATE: info('Date', false, { literal: { kind: 'datetime' } }),
  TIME: info('Time', false, { literal: { kind: 'datetime' } }),
  DATETIME: info('Datetime', false, { literal: { kind: 'datetime' } }),
  TIMESTAMP: info('Timestamp', false, { literal: { kind: 'datetime' } }),
  GEOGRAPHY: info('Geography', false, { ordered: false, sortable: false }),
  JSON: info('JSON', false, { encoding: 'json', ordered: false, sortable: false, json: true, literal: { kind: 'json' } }),
  // Nested and repeated fields come back whole, as JSON; they are not compared.
  STRUCT: info('JSON', false, { encoding: 'json', ordered: false, sortable: false, json: true, literal: { kind: 'json' } }),
  ARRAY: info('JSON', false, { encoding: 'json', ordered: false, sortable: false, json: true, literal: { kind: 'json' } }),
};

const OTHER = info('String', true, { ordered: false, sortable: false });

/** The GraphQL face of a BigQuery type (one object per type). */
export function bigqueryScalar(dbType: string): ScalarInfo {
  return SCALARS[canonicalType(dbType)] ?? OTHER;
}

/** The types the IR carries where no column gives one. */
export const BIGQUERY_TYPES: TypeNames = {
  count: 'INT64',
  boolean: 'BOOL',
  text: 'STRING',
  aggregateCount: 'INT64',
  actionScalars: [],
};
