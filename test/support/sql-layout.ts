/**
 * Note [Golden SQL layout]: the engine writes each statement on one line, which makes a golden
 * diff one changed line of 2,000 characters. `layoutSql` breaks it into one clause per line so
 * a review sees which clause changed. It is a layout, not a formatter: it only turns a single
 * space before a clause keyword into a line break plus indentation, and adds a line break after
 * a `(` that opens a subquery. Nothing inside a string literal ('…'), a quoted identifier
 * ("…") or a dollar-quoted string is looked at, and `unlayoutSql` gives the engine's text back,
 * which the unit test of this module checks.
 *
 * Breaks happen only at the query level (the top level, or inside a parenthesis that opens a
 * query: `(SELECT`, `(WITH`, `(INSERT`, `(UPDATE`, `(DELETE`), so the `ORDER BY` of
 * `json_agg(… ORDER BY …)` or the `FROM` of `extract(… FROM …)` stay where they are. The
 * indentation is two spaces per open subquery.
 */

/** Keywords (longest first) before which a clause starts on its own line. */
const CLAUSES = [
  'LEFT JOIN LATERAL',
  'CROSS JOIN LATERAL',
  'LEFT JOIN',
  'CROSS JOIN',
  'INNER JOIN',
  'JOIN',
  'ON CONFLICT',
  'FROM',
  'WHERE',
  'GROUP BY',
  'HAVING',
  'ORDER BY',
  'LIMIT',
  'RETURNING',
  'SET',
  'SELECT',
  'UNION ALL',
];

/** Words that, right after `(`, make the parenthesis a subquery. */
const QUERY_STARTS = ['SELECT', 'WITH', 'INSERT', 'UPDATE', 'DELETE'];

const INDENT = '  ';

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

/** The keyword of `list` starting at `i` as a whole word, or null. */
function keywordAt(sql: string, i: number, list: readonly string[]): string | null {
  if (isWordChar(sql[i - 1])) return null;
  for (const k of list) if (sql.startsWith(k, i) && !isWordChar(sql[i + k.length])) return k;
  return null;
}

/** Index just past the quoted run that starts at `i` (`'`, `"` or `$tag$`), or `i` if none starts there. */
function skipQuoted(sql: string, i: number): number {
  const c = sql[i];
  if (c === "'" || c === '"') {
    let j = i + 1;
    for (;;) {
      const k = sql.indexOf(c, j);
      if (k < 0) return sql.length;
      if (sql[k + 1] === c) {
        j = k + 2; // a doubled quote is an escaped quote
        continue;
      }
      return k + 1;
    }
  }
  if (c === '$' && !isWordChar(sql[i - 1])) {
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
    if (m !== null) {
      const end = sql.indexOf(m[0], i + m[0].length);
      return end < 0 ? sql.length : end + m[0].length;
    }
  }
  return i;
}

/** `sql` with one clause per line (see Note [Golden SQL layout]). */
export function layoutSql(sql: string): string {
  let out = '';
  // One entry per open parenthesis: does it open a query?
  const stack: boolean[] = [];
  const queryDepth = (): number => stack.filter((q) => q).length;
  const atQueryLevel = (): boolean => stack.length === 0 || stack[stack.length - 1] === true;
  let i = 0;
  while (i < sql.length) {
    const end = skipQuoted(sql, i);
    if (end > i) {
      out += sql.slice(i, end);
      i = end;
      continue;
    }
    const c = sql[i]!;
    if (c === '(') {
      const opensQuery = keywordAt(sql, i + 1, QUERY_STARTS) !== null;
      stack.push(opensQuery);
      out += opensQuery ? `(\n${INDENT.repeat(queryDepth())}` : '(';
      i++;
      continue;
    }
    if (c === ')') {
      stack.pop();
      out += c;
      i++;
      continue;
    }
    if (c === ' ' && atQueryLevel() && out.length > 0) {
      const clause = keywordAt(sql, i + 1, CLAUSES);
      // A from-list item after a comma (`, LATERAL (…)`) also gets its own line.
      const lateralItem = out.endsWith(',') && keywordAt(sql, i + 1, ['LATERAL']) !== null;
      if (clause !== null || lateralItem) {
        // The whole keyword goes out at once, so `LEFT JOIN` is not broken again before `JOIN`.
        out += `\n${INDENT.repeat(queryDepth())}${clause ?? ''}`;
        i += 1 + (clause?.length ?? 0);
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The engine's one-line text of a laid-out statement: `unlayoutSql(layoutSql(s)) === s`. */
export function unlayoutSql(laidOut: string): string {
  let out = '';
  let i = 0;
  while (i < laidOut.length) {
    const end = skipQuoted(laidOut, i);
    if (end > i) {
      out += laidOut.slice(i, end);
      i = end;
      continue;
    }
    if (laidOut[i] === '\n') {
      let j = i + 1;
      while (laidOut[j] === ' ') j++;
      // After `(` the break was inserted; elsewhere it replaced one space.
      out += out.endsWith('(') ? '' : ' ';
      i = j;
      continue;
    }
    out += laidOut[i];
    i++;
  }
  return out;
}
