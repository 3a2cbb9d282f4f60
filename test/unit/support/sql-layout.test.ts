/**
 * Note [Golden SQL layout] (test/support/sql-layout.ts): the layout only moves whitespace,
 * never inside literals, and the golden files are in its form.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { layoutSql, unlayoutSql } from '../../support/sql-layout.ts';

const passing = path.join(path.dirname(new URL(import.meta.url).pathname), '../../golden/passing');

/** The statements of every expected.postgres.sql (each ends with `;` before its params line). */
function goldenStatements(): string[] {
  const out: string[] = [];
  for (const area of readdirSync(passing)) {
    for (const c of readdirSync(path.join(passing, area))) {
      let text: string;
      try {
        text = readFileSync(path.join(passing, area, c, 'expected.postgres.sql'), 'utf8');
      } catch {
        continue;
      }
      for (const chunk of text.split(/;\n-- params: [^\n]*\n\n?/)) if (chunk !== '' && !chunk.startsWith('-- static:')) out.push(chunk);
    }
  }
  return out;
}

describe('layoutSql', () => {
  it('breaks before clauses and after a subquery parenthesis, one indent per subquery', () => {
    const sql =
      'SELECT a FROM (SELECT b FROM "t" AS "_0" WHERE ("_0"."b" = $1) ORDER BY "_0"."b" LIMIT 1) AS "_1" LEFT JOIN LATERAL (SELECT 1 AS "x") AS "_2" ON true';
    expect(layoutSql(sql)).toBe(
      [
        'SELECT a',
        'FROM (',
        '  SELECT b',
        '  FROM "t" AS "_0"',
        '  WHERE ("_0"."b" = $1)',
        '  ORDER BY "_0"."b"',
        '  LIMIT 1) AS "_1"',
        'LEFT JOIN LATERAL (',
        '  SELECT 1 AS "x") AS "_2" ON true',
      ].join('\n'),
    );
  });

  it('leaves clause words inside function calls, literals and quoted identifiers alone', () => {
    const sql = `SELECT json_agg("x" ORDER BY "y"), extract(year FROM "d"), ' FROM (SELECT '' WHERE ', "a FROM b", $q$ LIMIT 1 $q$ FROM "t"`;
    const laid = layoutSql(sql);
    expect(laid).toBe(`SELECT json_agg("x" ORDER BY "y"), extract(year FROM "d"), ' FROM (SELECT '' WHERE ', "a FROM b", $q$ LIMIT 1 $q$\nFROM "t"`);
    expect(unlayoutSql(laid)).toBe(sql);
  });

  it('gives the engine text back, and every golden statement is laid out', () => {
    const statements = goldenStatements();
    expect(statements.length).toBeGreaterThan(30);
    for (const s of statements) {
      expect(s).not.toMatch(/^\s|\s$/);
      expect(layoutSql(unlayoutSql(s))).toBe(s);
    }
  });
});
