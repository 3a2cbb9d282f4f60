/**
 * PostgreSQL types → their GraphQL face (see ScalarInfo in backend.ts). v2
 * compat: Hasura v2 names scalars after the Postgres type except a few that
 * map to the built-ins (int4 → Int, text and varchar → String, bool →
 * Boolean, float4 → Float) and int2/int8 (smallint, bigint). See
 * docs/compat.md, "Generated GraphQL schema".
 */
import type { ScalarInfo } from '../backend.ts';

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
    };
    known.set(dbType, s);
  }
  return s;
}
