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
