/** BigQuery's text syntax for the fragment compiler (backends/sql/fragment.ts): GoogleSQL. */
import type { Dialect } from '../sql/fragment.ts';

/** Backslash escapes, as GoogleSQL quoted identifiers and string literals take them. */
function escape(text: string, quote: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`).replaceAll('\n', '\\n').replaceAll('\r', '\\r');
}

/** `` `ident` ``, `'string'`, `@pN` (named parameters), `CAST(@pN AS TYPE)`. */
export const BIGQUERY_DIALECT: Dialect = {
  quoteIdent: (name) => `\`${escape(name, '`')}\``,
  quoteString: (value) => `'${escape(value, "'")}'`,
  placeholder: (n) => `@p${n}`,
  cast: (placeholder, dbType) => `CAST(${placeholder} AS ${dbType})`,
  sessionArray: bigquerySessionArray,
};

/**
 * A session variable used as an array: a JSON array (`[1,2]`) is parsed; a
 * PostgreSQL-style literal (`{1,2}`, as v2 clients send them) is split on commas.
 */
function bigquerySessionArray(text: string): unknown {
  const t = text.trim();
  if (t.startsWith('[')) {
    try {
      const v = JSON.parse(t) as unknown;
      if (Array.isArray(v)) return v;
    } catch {
      // Not JSON: read as a literal below.
    }
  }
  const inner = t.startsWith('{') && t.endsWith('}') ? t.slice(1, -1) : t;
  return inner === '' ? [] : inner.split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1'));
}
