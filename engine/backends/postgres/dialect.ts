/** PostgreSQL's text syntax for the fragment compiler (backends/sql/fragment.ts). */
import type { Dialect } from '../sql/fragment.ts';

/** `"ident"`, `'string'` (standard-conforming), `$n`, `($n)::type`. */
export const POSTGRES_DIALECT: Dialect = {
  quoteIdent: (name) => `"${name.replaceAll('"', '""')}"`,
  quoteString: (value) => `'${value.replaceAll("'", "''")}'`,
  placeholder: (n) => `$${n}`,
  cast: (placeholder, dbType) => `(${placeholder})::${dbType}`,
};
