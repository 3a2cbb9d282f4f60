/**
 * Typed parameters: each slot of a compiled statement carries its value's
 * type into the bound statement (what tedious and BigQuery need for nulls
 * and arrays), and a session variable used as an array is read by the
 * statement's dialect.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../../engine/auth/session.ts';
import { POSTGRES_DIALECT } from '../../../engine/backends/postgres/dialect.ts';
import { compileFragment, param, sql, type Dialect } from '../../../engine/backends/sql/fragment.ts';
import { bindStatement } from '../../../engine/execute/bind-statement.ts';
import type * as ir from '../../../engine/ir/index.ts';

const ids: ir.ParamSource = { kind: 'session', name: 'x-engine-allowed-ids', encoding: 'session-array' };
const name: ir.ParamSource = { kind: 'variable', name: 'name', encoding: 'plain', allowNull: true };

/** A dialect that reads `{1,2}` itself (a driver that cannot parse PostgreSQL array literals). */
const BRACES: Dialect = {
  ...POSTGRES_DIALECT,
  placeholder: (n) => `@p${n}`,
  sessionArray: (text) => (text.startsWith('{') ? text.slice(1, -1).split(',') : text),
};

const statement = sql`SELECT 1 WHERE ${param(ids, 'int4[]')} IS NOT NULL AND ${param(name, null, { dbType: 'text', list: false })} IS NULL AND ${param(ids, 'int4[]')} IS NOT NULL`;

function session(allowed: string): Session {
  return { role: 'user', isAdmin: false, variables: { 'x-engine-role': 'user', 'x-engine-allowed-ids': allowed }, backendOnly: false } as Session;
}

describe('typed parameters', () => {
  it('each slot keeps its type (a cast gives one; a shared slot has one)', () => {
    const c = compileFragment(statement, POSTGRES_DIALECT);
    expect(c.text).toBe('SELECT 1 WHERE ($1)::int4[] IS NOT NULL AND $2 IS NULL AND ($1)::int4[] IS NOT NULL');
    expect(c.paramTypes).toEqual([
      { dbType: 'int4', list: true },
      { dbType: 'text', list: false },
    ]);
    const bound = bindStatement(c, { name: null }, session('{1,2}'));
    // The same array for every binding: no per-request work.
    expect(bound.types).toBe(c.paramTypes);
    expect(bound.values).toEqual(['{1,2}', null]);
  });

  it('a session array is read by the dialect: PostgreSQL parses JSON and passes its own literal through', () => {
    const pg = compileFragment(statement, POSTGRES_DIALECT);
    expect(bindStatement(pg, {}, session('[1, 2]')).values[0]).toEqual([1, 2]);
    expect(bindStatement(pg, {}, session('{1,2}')).values[0]).toBe('{1,2}');
    const braces = compileFragment(statement, BRACES);
    expect(braces.text).toContain('(@p1)::int4[]');
    expect(bindStatement(braces, {}, session('{1,2}')).values[0]).toEqual(['1', '2']);
  });
});
