/**
 * The permission builder's tree (engine/console/src/pages/permissions/bool-exp.ts):
 * `_exists` and relationship conditions inside `_and` / `_or` / `_not` read and written back exactly
 * (Note [The builder shows only what it writes back]), values typed becoming
 * values of their column's type, and what the builder leaves to the JSON.
 */
import { describe, expect, it } from 'vitest';
import type { DbColumn } from '../../../engine/console/src/introspect.ts';
import { readGroup, writeGroup, type Group, type Scope, type ScopeOf } from '../../../engine/console/src/pages/permissions/bool-exp.ts';

const col = (name: string, type: string): DbColumn => ({ name, type, nullable: false, hasDefault: false });
// articles.author → users, users.articles → articles: relationships may go round.
const articles: Scope = {
  columns: [col('id', 'integer'), col('author_id', 'integer'), col('published', 'boolean')],
  relationships: [{ name: 'author', target: () => users }],
};
const users: Scope = { columns: [col('id', 'integer'), col('role', 'text')], relationships: [{ name: 'articles', target: () => articles }] };
const columnsOf: ScopeOf = (t) => {
  const name = typeof t === 'string' ? t : t.name;
  const schema = typeof t === 'string' ? 'public' : (t.schema ?? 'public');
  return schema === 'public' && name === 'users' ? users : schema === 'public' && name === 'articles' ? articles : undefined;
};

describe('permission builder tree', () => {
  it('reads and writes back _exists nested in _or and _not, table as written', () => {
    const exprs: unknown[] = [
      { _exists: { _table: { schema: 'public', name: 'users' }, _where: { id: { _eq: 'X-Engine-User-Id' } } } },
      { _or: [{ published: { _eq: true } }, { _exists: { _table: 'users', _where: { _and: [{ id: { _eq: 1 } }, { role: { _in: ['a', 'b'] } }] } } }] },
      { _not: { _exists: { _where: {}, _table: { name: 'users', schema: 'public' } } }, author_id: { _gt: 3 } },
      { _and: [{ _exists: { _table: { schema: 'public', name: 'users' }, _where: { role: { _eq: 'editor' } } } }] },
      { author: { _or: [{ role: { _eq: 'X-Engine-Role' } }, { articles: { published: { _eq: true } } }] } },
      { _not: { author: {} }, published: { _eq: false } },
    ];
    for (const e of exprs) {
      const tree = readGroup(e, articles, columnsOf);
      expect(tree, JSON.stringify(e)).not.toBeNull();
      expect(writeGroup(tree!, articles, columnsOf)).toEqual({ value: e, problem: null });
    }
  });

  it('writes what was built, values of their column types, and says what is missing', () => {
    const g: Group = {
      form: 'plain',
      items: [
        { kind: 'column', column: 'published', op: '_eq', value: 'true' },
        {
          kind: 'any',
          items: [
            {
              kind: 'exists',
              table: { schema: 'public', name: 'users' },
              body: { form: 'plain', items: [{ kind: 'column', column: 'id', op: '_eq', value: '7' }] },
            },
          ],
        },
      ],
    };
    expect(writeGroup(g, articles, columnsOf)).toEqual({
      value: { _and: [{ published: { _eq: true } }, { _or: [{ _exists: { _table: { schema: 'public', name: 'users' }, _where: { id: { _eq: 7 } } } }] }] },
      problem: null,
    });
    const bad: Group = {
      form: 'plain',
      items: [{ kind: 'not', body: { form: 'plain', items: [{ kind: 'exists', table: null, body: { form: 'plain', items: [] } }] } }],
    };
    expect(writeGroup(bad, articles, columnsOf).problem).toBe('condition 1.1: pick the table of _exists');
    const rel: Group = {
      form: 'plain',
      items: [{ kind: 'rel', name: 'author', body: { form: 'plain', items: [{ kind: 'column', column: 'id', op: '_eq', value: 'X-Engine-User-Id' }] } }],
    };
    expect(writeGroup(rel, articles, columnsOf)).toEqual({ value: { author: { id: { _eq: 'X-Engine-User-Id' } } }, problem: null });
    const unnamed: Group = { form: 'plain', items: [{ kind: 'rel', name: '', body: { form: 'plain', items: [] } }] };
    expect(writeGroup(unnamed, articles, columnsOf).problem).toBe('condition 1: pick the relationship');
    const typed: Group = {
      form: 'plain',
      items: [{ kind: 'exists', table: 'users', body: { form: 'plain', items: [{ kind: 'column', column: 'id', op: '_eq', value: 'x' }] } }],
    };
    expect(writeGroup(typed, articles, columnsOf).problem).toBe('condition 1.1: "x" is not a number (column id is integer)');
  });

  it('leaves to the JSON what it would write differently or cannot show', () => {
    expect(readGroup({ _exists: { _table: 'nowhere', _where: {} } }, articles, columnsOf)).toBeNull();
    expect(readGroup({ _exists: { _table: 'users', _where: { id: { _eq: '5' } } } }, articles, columnsOf)).toBeNull();
    expect(readGroup({ editor: { id: { _eq: 1 } } }, articles, columnsOf)).toBeNull();
    expect(readGroup({ author: { nickname: { _eq: 'x' } } }, articles, columnsOf)).toBeNull();
    expect(readGroup({ _and: [{ id: { _eq: 1 } }], published: { _eq: true } }, articles, columnsOf)).toBeNull();
    expect(readGroup({}, articles, columnsOf)).toEqual({ items: [], form: 'plain' });
  });
});
