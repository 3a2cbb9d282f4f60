/**
 * PostgreSQL types → their GraphQL face (see ScalarInfo in backend.ts). v2
 * compat: Hasura v2 names scalars after the Postgres type except a few that
 * map to the built-ins (int4 → Int, text and varchar → String, bool →
 * Boolean, float4 → Float) and int2/int8 (smallint, bigint). See
 * docs/compat.md, "Generated GraphQL schema".
 */
import type { LiteralClass, ScalarInfo, TypeNames } from '../backend.ts';

const BUILTIN: Readonly<Record<string, string>> = {
  int4: 'Int',
  serial: 'Int',
  text: 'String',
  varchar: 'String',
  bool: 'Boolean',
  float4: 'Float',
};

const RENAMED: Readonly<Record<string, string>> = {
  int2: 'smallint',
  int8: 'bigint',
  bigserial: 'bigint',
  smallserial: 'smallint',
};

/** v2 compat: ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES applies to bigint, numeric and double precision. */
const BIG_NUMERIC = new Set(['int8', 'numeric', 'float8', 'bigserial', 'money']);

/** Types with sum/avg/stddev/variance. */
const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money', 'serial', 'bigserial', 'smallserial']);

/** Types with max/min besides the numeric ones. */
const ORDERED = new Set(['text', 'varchar', 'bpchar', 'citext', 'name', 'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'char']);

/** Text types with the `_like`/`_regex` family. */
const TEXT = new Set(['text', 'varchar', 'bpchar', 'citext', 'name', 'char']);

/** Text types an enum table's key may have. */
const TEXTUAL = new Set(['text', 'varchar', 'bpchar', 'citext', 'name']);

const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int2: [-32768n, 32767n],
  smallserial: [1n, 32767n],
  int4: [-2147483648n, 2147483647n],
  serial: [1n, 2147483647n],
  int8: [-9223372036854775808n, 9223372036854775807n],
  bigserial: [1n, 9223372036854775807n],
};

const DECIMAL = new Set(['numeric', 'float4', 'float8']);
const DATE_TIME = new Set(['date', 'time', 'timetz', 'timestamp', 'timestamptz']);

/** What literals of `dbType` look like (Note [Permission literals] in catalog/permission-literals.ts). */
function literalClass(dbType: string): LiteralClass {
  const range = INTEGER_RANGES[dbType];
  if (range !== undefined) return { kind: 'integer', min: range[0], max: range[1] };
  if (DECIMAL.has(dbType)) return { kind: 'decimal' };
  if (dbType === 'bool') return { kind: 'boolean' };
  if (dbType === 'uuid') return { kind: 'uuid' };
  if (DATE_TIME.has(dbType)) return { kind: 'datetime' };
  if (dbType === 'interval') return { kind: 'interval' };
  if (isJsonType(dbType)) return { kind: 'json' };
  return { kind: 'other' };
}

/**
 * The types the IR carries where no column gives one. v2 compat: an
 * aggregate's `count` is `Int` (int4) in the schema, compared and ordered as
 * the bigint `count(*)` returns; the common scalars are those v2 lets an
 * action type name without defining them.
 */
export const POSTGRES_TYPES: TypeNames = {
  count: 'int8',
  boolean: 'bool',
  text: 'text',
  aggregateCount: 'int4',
  actionScalars: [
    'uuid',
    'json',
    'jsonb',
    'timestamptz',
    'timestamp',
    'date',
    'time',
    'timetz',
    'numeric',
    'bigint',
    'smallint',
    'bpchar',
    'bytea',
    'interval',
    'inet',
    'citext',
    'float8',
  ],
};

/** True for `json` and `jsonb`. */
export function isJsonType(dbType: string): boolean {
  return dbType === 'jsonb' || dbType === 'json';
}

const known = new Map<string, ScalarInfo>();

/** The GraphQL face of a PostgreSQL type; one object per type name. */
export function postgresScalar(dbType: string): ScalarInfo {
  let s = known.get(dbType);
  if (s === undefined) {
    s = {
      graphqlName: BUILTIN[dbType] ?? RENAMED[dbType] ?? dbType,
      builtin: BUILTIN[dbType] !== undefined,
      encoding: isJsonType(dbType) ? 'json' : 'plain',
      // Only jsonb has the document operators (`_contains`, `_has_key`…).
      operators: dbType === 'jsonb' ? 'json' : TEXT.has(dbType) ? 'text' : 'equality',
      numeric: NUMERIC.has(dbType),
      ordered: NUMERIC.has(dbType) || ORDERED.has(dbType),
      bigNumeric: BIG_NUMERIC.has(dbType),
      literal: literalClass(dbType),
      textual: TEXTUAL.has(dbType),
      json: isJsonType(dbType),
      // `json` has no equality, so no ordering either (jsonb has both).
      sortable: dbType !== 'json',
    };
    known.set(dbType, s);
  }
  return s;
}
