import { describe, expect, it } from 'vitest';
import { inconsistenciesByKey, inconsistencyMessage, keyOfInconsistency, type SourceKinds } from '../../../controller/reconcilers/inconsistency-map.ts';

/** Postgres sources `default` and `s2`. */
const PG: SourceKinds = new Map([
  ['default', 'postgres'],
  ['s2', 'postgres'],
]);

describe('keyOfInconsistency', () => {
  it('reads the v2 names of sources, tables, relationships and permissions', () => {
    expect(keyOfInconsistency({ type: 'source', name: 'source default', reason: 'x' }, PG)).toBe('source/default');
    expect(keyOfInconsistency({ type: 'table', name: 'table shop.order in source default', reason: 'x' }, PG)).toBe('table/default/shop.order');
    expect(keyOfInconsistency({ type: 'object_relation', name: 'relationship author in table article in source default', reason: 'x' }, PG)).toBe(
      'relationship/default/public.article/author',
    );
    expect(keyOfInconsistency({ type: 'select_permission', name: 'permission author.user.select in source default', reason: 'x' }, PG)).toBe(
      'permission/default/public.author/user/select',
    );
    expect(keyOfInconsistency({ type: 'update_permission', name: 'permission shop.order.editor.update in source s2', reason: 'x' }, PG)).toBe(
      'permission/s2/shop.order/editor/update',
    );
  });

  it('falls back to the definition, and reads remote schemas and triggers by name', () => {
    expect(
      keyOfInconsistency({ type: 'insert_permission', reason: 'x', definition: { source: 'default', table: { schema: 'public', name: 'a' }, role: 'r' } }, PG),
    ).toBe('permission/default/public.a/r/insert');
    expect(keyOfInconsistency({ type: 'remote_schema', name: 'remote_schema countries', reason: 'x', definition: { name: 'countries' } }, PG)).toBe(
      'remote_schema/countries',
    );
    expect(keyOfInconsistency({ type: 'cron_trigger', reason: 'x', definition: { name: 'nightly' } }, PG)).toBe('cron_trigger/nightly');
    expect(keyOfInconsistency({ type: 'event_trigger', reason: 'x', definition: { name: 'e', table: 'order', source: 'default' } }, PG)).toBe(
      'event_trigger/default/public.order/e',
    );
    expect(keyOfInconsistency({ type: 'api_limits', reason: 'x', definition: { name: 'a' } }, PG)).toBeNull();
  });

  it('reads actions, custom types, query collections, the allow-list and REST endpoints (by id and by name)', () => {
    expect(keyOfInconsistency({ type: 'action', name: 'action hello', reason: 'x', id: '["action","hello"]' }, PG)).toBe('action/hello');
    expect(keyOfInconsistency({ type: 'action', reason: 'x', definition: { name: 'a' } }, PG)).toBe('action/a');
    expect(keyOfInconsistency({ type: 'action_permission', name: 'action permission hello.user', reason: 'x' }, PG)).toBe('action_permission/hello/user');
    expect(keyOfInconsistency({ type: 'action_permission', reason: 'x', id: '["action_permission","hello","user"]' }, PG)).toBe('action_permission/hello/user');
    expect(keyOfInconsistency({ type: 'custom_types', name: 'custom types', reason: 'x', id: '["custom_types"]' }, PG)).toBe('custom_types');
    expect(keyOfInconsistency({ type: 'query_collection', reason: 'x', id: '["query_collection","c","q1"]' }, PG)).toBe('query_collection/c');
    expect(keyOfInconsistency({ type: 'query_collection', name: 'query q1 in query collection c', reason: 'x' }, PG)).toBe('query_collection/c');
    expect(keyOfInconsistency({ type: 'allowlist', name: 'allowlist entry for query collection c', reason: 'x' }, PG)).toBe('allowlist/c');
    expect(keyOfInconsistency({ type: 'rest_endpoint', reason: 'x', id: '["rest_endpoint","get-one"]' }, PG)).toBe('rest_endpoint/get-one');
    expect(keyOfInconsistency({ type: 'rest_endpoint', name: 'rest endpoint get-one', reason: 'x' }, PG)).toBe('rest_endpoint/get-one');
  });

  it('reads functions, function permissions, computed fields and inherited roles', () => {
    expect(keyOfInconsistency({ type: 'function', name: 'function search_books in source default', reason: 'x' }, PG)).toBe(
      'function/default/public.search_books',
    );
    expect(keyOfInconsistency({ type: 'function_permission', name: 'function permission shop.search.user in source default', reason: 'x' }, PG)).toBe(
      'function_permission/default/shop.search/user',
    );
    expect(keyOfInconsistency({ type: 'computed_field', name: 'computed field full_name in table author in source default', reason: 'x' }, PG)).toBe(
      'computed_field/default/public.author/full_name',
    );
    expect(keyOfInconsistency({ type: 'inherited_role', name: 'inherited role editor', reason: 'x' }, PG)).toBe('inherited_role/editor');
  });

  it("reads a bare table of an MSSQL source in its kind's default schema (dbo), by name and by definition", () => {
    const kinds: SourceKinds = new Map([
      ['default', 'postgres'],
      ['ms', 'mssql'],
    ]);
    expect(keyOfInconsistency({ type: 'table', name: 'table orders in source ms', reason: 'x' }, kinds)).toBe('table/ms/dbo.orders');
    expect(keyOfInconsistency({ type: 'select_permission', name: 'permission orders.user.select in source ms', reason: 'x' }, kinds)).toBe(
      'permission/ms/dbo.orders/user/select',
    );
    expect(keyOfInconsistency({ type: 'event_trigger', reason: 'x', definition: { name: 'e', table: 'orders', source: 'ms' } }, kinds)).toBe(
      'event_trigger/ms/dbo.orders/e',
    );
    expect(keyOfInconsistency({ type: 'table', name: 'table orders in source default', reason: 'x' }, kinds)).toBe('table/default/public.orders');
  });

  it('uses the engine id when one is sent', () => {
    expect(keyOfInconsistency({ type: 'table', reason: 'x', id: '["permission","default","public","a","r","delete"]' }, PG)).toBe(
      'permission/default/public.a/r/delete',
    );
  });
});

describe('inconsistencyMessage', () => {
  it('answers the own reasons, else those of the table or source the object depends on', () => {
    const byKey = inconsistenciesByKey(
      [
        { type: 'table', name: 'table gone in source default', reason: 'Inconsistent object: no such table/view exists in source: "gone"' },
        { type: 'object_relation', name: 'relationship x in table gone in source default', reason: 'Inconsistent object: bad column' },
      ],
      PG,
    );
    const gone = { schema: 'public', name: 'gone' };
    // A TrackedTable's keys: the table and the relationship it declares.
    expect(
      inconsistencyMessage({ kind: 'table', source: 'default', table: gone }, ['table/default/public.gone', 'relationship/default/public.gone/x'], byKey),
    ).toBe(
      'table gone in source default: Inconsistent object: no such table/view exists in source: "gone"; relationship x in table gone in source default: Inconsistent object: bad column',
    );
    const perm = { kind: 'permission', source: 'default', table: gone, role: 'user', operation: 'select' } as const;
    expect(inconsistencyMessage(perm, ['permission/default/public.gone/user/select'], byKey)).toMatch(/^depends on an inconsistent object: table gone/);
    const fine = { schema: 'public', name: 'fine' };
    expect(inconsistencyMessage({ kind: 'table', source: 'default', table: fine }, ['table/default/public.fine'], byKey)).toBeNull();
  });

  it("gives every CustomTypes resource the inconsistency of the engine's one custom-types object", () => {
    const byKey = inconsistenciesByKey(
      [{ type: 'custom_types', name: 'custom types', reason: 'Inconsistent object: in custom types: bad', id: '["custom_types"]' }],
      PG,
    );
    expect(inconsistencyMessage({ kind: 'custom_type', name: 'A' }, ['custom_type/A', 'custom_type/B'], byKey)).toBe(
      'custom types: Inconsistent object: in custom types: bad',
    );
    expect(inconsistencyMessage({ kind: 'action', name: 'a' }, ['action/a'], byKey)).toBeNull();
  });

  it('reports an endpoint whose collection is inconsistent as depending on it', () => {
    const byKey = inconsistenciesByKey([{ type: 'query_collection', reason: 'Inconsistent object: bad query', id: '["query_collection","c","q"]' }], PG);
    expect(inconsistencyMessage({ kind: 'rest_endpoint', name: 'e', collection: 'c' }, ['rest_endpoint/e'], byKey)).toBe(
      'depends on an inconsistent object: Inconsistent object: bad query',
    );
  });
});
