/**
 * Postgres facts about scalar types that SQL translation needs: which types
 * are JSON (values are JSON-encoded and compared as jsonb).
 */

/** True for `json` and `jsonb`. */
export function isJsonType(dbType: string): boolean {
  return dbType === 'jsonb' || dbType === 'json';
}
