/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * The permission boolean expression language over HTTP: each case is a select
 * filter for its own role; the ids the role reads must equal those an
 * equivalent SQL WHERE (written by hand here) selects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPermissionFixture, type PermissionFixture } from '../../support/permission-schema.ts';

interface Case {
  readonly name: string;
  readonly filter: Record<string, unknown>;
  /** The SQL WHERE over `docs d` the filter means, for these session values. */
  readonly sql: string;
  readonly session?: Record<string, string>;
}

const CASES: readonly Case[] = [
  { name: '_eq, _gt, _lte', filter: { score: { _gt: 3, _lte: 7 } }, sql: 'd.score > 3 AND d.score <= 7' },
  { name: 'bare column: value', filter: { status: 'draft' }, sql: "d.status = 'draft'" },
  { name: '$eq alias', filter: { status: { $eq: 'published' } }, sql: "d.status = 'published'" },
  { name: '_ne', filter: { status: { _ne: 'draft' } }, sql: "d.status <> 'draft'" },
  { name: '$neq', filter: { status: { $neq: 'published' } }, sql: "d.status <> 'published'" },
  { name: '_neq, _gte, _lt', filter: { score: { _neq: 5, _gte: 1, _lt: 9 } }, sql: 'd.score <> 5 AND d.score >= 1 AND d.score < 9' },
  { name: '_and / $and', filter: { $and: [{ score: { _gte: 3 } }, { _and: [{ status: 'published' }] }] }, sql: "d.score >= 3 AND d.status = 'published'" },
  { name: '_or / $or', filter: { $or: [{ status: 'archived' }, { _or: [{ score: { _eq: 1 } }] }] }, sql: "d.status = 'archived' OR d.score = 1" },
  { name: '_not', filter: { _not: { status: 'published' } }, sql: "NOT (d.status = 'published')" },
  { name: '$not', filter: { $not: { score: { _gt: 4 } } }, sql: 'NOT (d.score > 4)' },
  { name: 'empty filter admits every row', filter: {}, sql: 'true' },
  {
    name: '_in / _nin static',
    filter: { score: { _in: [1, 5, 9] }, status: { _nin: ['archived'] } },
    sql: "d.score IN (1, 5, 9) AND d.status NOT IN ('archived')",
  },
  { name: '_is_null true / false', filter: { body: { _is_null: true } }, sql: 'd.body IS NULL' },
  { name: '_is_null false', filter: { meta: { _is_null: false } }, sql: 'd.meta IS NOT NULL' },
  { name: '_like / _nlike', filter: { title: { _like: '%ta', _nlike: 'Be%' } }, sql: "d.title LIKE '%ta' AND d.title NOT LIKE 'Be%'" },
  { name: '_ilike / _nilike', filter: { title: { _ilike: '%A', _nilike: 'g%' } }, sql: "d.title ILIKE '%A' AND d.title NOT ILIKE 'g%'" },
  {
    name: '_similar / _nsimilar',
    filter: { title: { _similar: '(A|G)%', _nsimilar: '%mma' } },
    sql: "d.title SIMILAR TO '(A|G)%' AND d.title NOT SIMILAR TO '%mma'",
  },
  { name: '_regex / _nregex', filter: { title: { _regex: '^[A-Z]', _nregex: 'ta$' } }, sql: "d.title ~ '^[A-Z]' AND d.title !~ 'ta$'" },
  { name: '_iregex / _niregex', filter: { title: { _iregex: '^[a-e]', _niregex: 'LTA' } }, sql: "d.title ~* '^[a-e]' AND d.title !~* 'LTA'" },
  { name: 'jsonb _contains / _contained_in', filter: { meta: { _contains: { a: 1 } } }, sql: `d.meta @> '{"a": 1}'` },
  { name: 'jsonb _contained_in', filter: { meta: { _contained_in: { a: 3, b: 4, c: 5 } } }, sql: `d.meta <@ '{"a": 3, "b": 4, "c": 5}'` },
  { name: 'jsonb _has_key', filter: { meta: { _has_key: 'lang' } }, sql: "d.meta ? 'lang'" },
  { name: '_has_keys_any / _has_any_keys', filter: { meta: { _has_any_keys: ['a', 'zzz'] } }, sql: "d.meta ?| array['a','zzz']" },
  { name: '_has_keys_all / _has_all_keys', filter: { meta: { _has_all_keys: ['a', 'b'] } }, sql: "d.meta ?& array['a','b']" },
  { name: '_has_keys_all canonical', filter: { meta: { _has_keys_all: ['a', 'lang'] } }, sql: "d.meta ?& array['a','lang']" },
  { name: 'object relationship', filter: { owner: { org_id: { _eq: 1 } } }, sql: 'EXISTS (SELECT 1 FROM users u WHERE u.id = d.owner_id AND u.org_id = 1)' },
  {
    name: 'two-hop object relationship',
    filter: { owner: { org: { name: { _eq: 'Globex' } } } },
    sql: "EXISTS (SELECT 1 FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.id = d.owner_id AND o.name = 'Globex')",
  },
  {
    name: 'array relationship = some related row',
    filter: { owner: { docs: { status: 'archived' } } },
    sql: "EXISTS (SELECT 1 FROM docs d2 WHERE d2.owner_id = d.owner_id AND d2.status = 'archived')",
  },
  {
    name: '_exists over an unrelated table',
    filter: { _exists: { _table: 'flags', _where: { name: 'open', enabled: true } } },
    sql: "EXISTS (SELECT 1 FROM flags WHERE name = 'open' AND enabled)",
  },
  {
    name: '$exists with a qualified table and a false _where',
    filter: { $exists: { _table: { schema: 'public', name: 'flags' }, _where: { name: 'closed', enabled: true } } },
    sql: 'false',
  },
  { name: 'column comparison _ceq', filter: { created_by: { _ceq: 'approved_by' } }, sql: 'd.created_by = d.approved_by' },
  {
    name: 'column comparisons _cgt / _cne / _clte',
    filter: { created_by: { _cgt: 'approved_by' }, owner_id: { _cne: 'approved_by', _clte: 'created_by' } },
    sql: 'd.created_by > d.approved_by AND d.owner_id <> d.approved_by AND d.owner_id <= d.created_by',
  },
  {
    name: 'session variable (name in any case)',
    filter: { owner_id: { _eq: 'X-Engine-User-Id' } },
    session: { 'X-ENGINE-USER-ID': '3' },
    sql: 'd.owner_id = 3',
  },
  { name: 'bare session variable value', filter: { owner_id: 'x-engine-user-id' }, session: { 'x-engine-user-id': '1' }, sql: 'd.owner_id = 1' },
  {
    name: 'session variable through a relationship',
    filter: { owner: { org_id: { _eq: 'x-engine-org-id' } } },
    session: { 'x-engine-org-id': '2' },
    sql: 'EXISTS (SELECT 1 FROM users u WHERE u.id = d.owner_id AND u.org_id = 2)',
  },
  {
    name: 'array session variable as Postgres literal in _in',
    filter: { owner_id: { _in: 'x-engine-allowed-ids' } },
    session: { 'x-engine-allowed-ids': '{1,3}' },
    sql: 'd.owner_id IN (1, 3)',
  },
  {
    name: 'array session variable as JSON in _in',
    filter: { owner_id: { _in: 'X-Engine-Allowed-Ids' } },
    session: { 'x-engine-allowed-ids': '[2, 3]' },
    sql: 'd.owner_id IN (2, 3)',
  },
  {
    name: 'array session variable in _nin',
    filter: { status: { _nin: 'x-engine-hidden' } },
    session: { 'x-engine-hidden': '{draft,archived}' },
    sql: "d.status NOT IN ('draft', 'archived')",
  },
  {
    name: 'array session variable in _has_keys_any',
    filter: { meta: { _has_keys_any: 'x-engine-keys' } },
    session: { 'x-engine-keys': '["b","lang"]' },
    sql: "d.meta ?| array['b','lang']",
  },
  {
    name: 'array session variable in _has_keys_all',
    filter: { meta: { _has_keys_all: 'x-engine-keys' } },
    session: { 'x-engine-keys': '{a,b}' },
    sql: "d.meta ?& array['a','b']",
  },
  {
    name: 'session variables inside a static list',
    filter: { owner_id: { _in: ['x-engine-user-id', 2] } },
    session: { 'x-engine-user-id': '3' },
    sql: 'd.owner_id IN (3, 2)',
  },
  {
    name: 'nested combinators with relationships',
    filter: { _or: [{ _and: [{ owner: { name: { _ilike: 'a%' } } }, { _not: { score: { _lt: 5 } } }] }, { owner_id: { _is_null: true } }] },
    sql: "(EXISTS (SELECT 1 FROM users u WHERE u.id = d.owner_id AND u.name ILIKE 'a%') AND NOT (d.score < 5)) OR d.owner_id IS NULL",
  },
];

let f: PermissionFixture;
/** How many rows each case's SQL selected: the cases must discriminate, not admit all or nothing. */
const sizes: number[] = [];
beforeAll(async () => {
  f = await startPermissionFixture();
  await f.setPermissions({
    docs: { select: CASES.map((c, i) => ({ role: `case${i}`, permission: { columns: '*', filter: c.filter } })) },
  });
});
afterAll(async () => {
  await f?.close();
});

describe('permission boolean expressions', () => {
  CASES.forEach((c, i) => {
    it(c.name, async () => {
      const expected = (await f.db.sql(`SELECT d.id FROM docs d WHERE ${c.sql} ORDER BY d.id`)).rows.map((r: any) => r.id);
      sizes.push(expected.length);
      const r = await f.as(`case${i}`, '{ docs(order_by: {id: asc}) { id } }', c.session ?? {});
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.docs.map((d: any) => d.id)).toEqual(expected);
    });
  });

  it('the cases discriminate (most admit some rows but not all)', () => {
    expect(sizes.filter((n) => n > 0 && n < 6).length).toBeGreaterThanOrEqual(CASES.length - 4);
  });

  it('a missing session variable is a clear error naming it', async () => {
    const i = CASES.findIndex((c) => c.name.startsWith('session variable (name'));
    const r = await f.as(`case${i}`, '{ docs { id } }', {});
    expect(r.errors[0].extensions.code).toBe('not-found');
    expect(r.errors[0].message).toContain('x-engine-user-id');
  });

  it('a malformed array session variable is an error, not a widened filter', async () => {
    const i = CASES.findIndex((c) => c.name.includes('Postgres literal in _in'));
    const r = await f.as(`case${i}`, '{ docs { id } }', { 'x-engine-allowed-ids': 'not-an-array' });
    expect(r.errors).toBeDefined();
    expect(r.data ?? null).toBeNull();
  });

  it('the filter also applies to by_pk and aggregates', async () => {
    await f.md('pg_create_select_permission', {
      table: 'docs',
      role: 'agg',
      permission: { columns: '*', filter: { status: 'published' }, allow_aggregations: true },
    });
    const r = await f.as('agg', '{ docs_by_pk(id: 2) { id } docs_aggregate { aggregate { count sum { score } } } }');
    expect(r.data.docs_by_pk).toBeNull();
    expect(r.data.docs_aggregate.aggregate).toEqual({ count: 3, sum: { score: 21 } });
  });
});
