/**
 * v2 compat: legacy `/v1/query` table calls also accept the table inline as
 * `{schema, name}` instead of `{table: ...}`.
 */

/** Moves an inline `{schema, name}` into `table`; other shapes pass unchanged. */
export function legacyTableArgs(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const r = raw as Record<string, unknown>;
  if (r['table'] !== undefined || r['name'] === undefined) return raw;
  const { schema, name, ...rest } = r;
  return { ...rest, table: schema === undefined ? { name } : { schema, name } };
}

/**
 * `track_table`/`untrack_table` on `/v1/query` also take the bare table name
 * as `args` (`{"type": "track_table", "args": "authors"}`: a table of the
 * `public` schema), which v2 still accepts; other shapes as {@link legacyTableArgs}.
 */
export function legacyTrackArgs(raw: unknown): unknown {
  return typeof raw === 'string' ? { table: raw } : legacyTableArgs(raw);
}
