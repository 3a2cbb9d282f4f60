/** PostgreSQL's text syntax for the fragment compiler (backends/sql/fragment.ts). */
import type { Dialect } from '../sql/fragment.ts';

/** `"ident"`, `'string'` (standard-conforming), `$n`, `($n)::type`. */
export const POSTGRES_DIALECT: Dialect = {
  quoteIdent: (name) => `"${name.replaceAll('"', '""')}"`,
  quoteString: (value) => `'${value.replaceAll("'", "''")}'`,
  placeholder: (n) => `$${n}`,
  cast: (placeholder, dbType) => `(${placeholder})::${dbType}`,
  sessionArray: postgresSessionArray,
};

/**
 * A session variable used as an array: a JSON array (`[1,2]`) is parsed; a
 * PostgreSQL array literal (`{1,2}`), or text that is not JSON, is sent as
 * it is and read by the parameter's array type.
 */
function postgresSessionArray(text: string): unknown {
  if (text.trimStart().startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
