/**
 * JSON construction in Postgres. Objects are `json_build_object`, which takes
 * at most 100 arguments; wider objects are built by text concatenation so
 * field order (the GraphQL response order) is kept.
 */
import { join, raw, seq, sql, stringLiteral, type Fragment } from '../sql/fragment.ts';

/** One key/value pair of a JSON object; `value` is any SQL expression. */
export interface JsonPair {
  readonly key: string;
  readonly value: Fragment;
}

/** Pairs per json_build_object call (Postgres functions take at most 100 arguments). */
const MAX_PAIRS = 50;

/** A `json` expression for an object with the given pairs, in order. */
export function jsonObject(pairs: readonly JsonPair[]): Fragment {
  if (pairs.length <= MAX_PAIRS) {
    return sql`json_build_object(${join(
      pairs.map((p) => seq([stringLiteral(p.key), raw(', '), p.value])),
      ', ',
    )})`;
  }
  // Build `{"k1":v1,"k2":v2,...}` as text; each value goes through to_json so
  // its JSON encoding is Postgres's own.
  const parts: Fragment[] = [];
  pairs.forEach((p, i) => {
    parts.push(stringLiteral(`${i === 0 ? '{' : ','}${JSON.stringify(p.key)}:`));
    parts.push(sql`coalesce(to_json(${p.value})::text, 'null')`);
  });
  parts.push(stringLiteral('}'));
  return sql`(${join(parts, ' || ')})::json`;
}

/** `coalesce(json_agg(row ORDER BY ...), '[]')`: rows as a JSON array, never null. */
export function jsonArrayAgg(row: Fragment, orderBy: Fragment | null): Fragment {
  return orderBy === null ? sql`coalesce(json_agg(${row}), '[]'::json)` : sql`coalesce(json_agg(${row} ORDER BY ${orderBy}), '[]'::json)`;
}
