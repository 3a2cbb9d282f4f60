/** T-SQL text syntax for the fragment compiler (backends/sql/fragment.ts). */
import type { Dialect } from '../sql/fragment.ts';

/**
 * `[ident]`, `N'string'` (Unicode: names and keys may be any text), `@pN`
 * placeholders (tedious binds them by name through sp_executesql), and
 * `CAST(@pN AS type)`.
 */
export const MSSQL_DIALECT: Dialect = {
  quoteIdent: (name) => `[${name.replaceAll(']', ']]')}]`,
  quoteString: (value) => `N'${value.replaceAll("'", "''")}'`,
  placeholder: (n) => `@p${n}`,
  cast: (placeholder, dbType) => `CAST(${placeholder} AS ${dbType})`,
  sessionArray: mssqlSessionArray,
};

/**
 * A session variable used as an array (`_in: "X-Engine-Allowed-Ids"`): a
 * JSON array is parsed (the connection sends lists as JSON text, read by
 * OPENJSON); PostgreSQL's `{1,2}` array literal is read too, as v2 users
 * write it for either backend; anything else is sent as it is.
 */
function mssqlSessionArray(text: string): unknown {
  const t = text.trim();
  if (t.startsWith('[')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return text;
    }
  }
  if (t.startsWith('{') && t.endsWith('}')) {
    const inner = t.slice(1, -1).trim();
    return inner === '' ? [] : inner.split(',').map((x) => x.trim().replace(/^"(.*)"$/, '$1'));
  }
  return text;
}
