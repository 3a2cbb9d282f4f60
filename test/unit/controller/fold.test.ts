import { describe, expect, it } from 'vitest';
import { EMPTY_DOCUMENT, emptyTable, type MetadataDocument, type SourceMetadata } from '../../../engine/model/document.ts';
import { API_VERSION } from '../../../controller/api/v1alpha1/common.ts';
import type { TargetResource } from '../../../controller/reconcilers/declarations.ts';
import { documentKeys, foldResources } from '../../../controller/reconcilers/fold.ts';

let seq = 0;
function res(kind: string, name: string, spec: Record<string, unknown>, meta: Partial<TargetResource['metadata']> = {}): TargetResource {
  seq++;
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, generation: 1, creationTimestamp: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`, ...meta },
    spec,
  };
}

const source: SourceMetadata = {
  name: 'default',
  kind: 'postgres',
  tables: [],
  functions: [],
  configuration: { connection_info: { database_url: 'postgres://x/y' } },
};

function docWith(sources: SourceMetadata[]): MetadataDocument {
  return { ...EMPTY_DOCUMENT, sources };
}

const author = { schema: 'public', name: 'author' };

describe('foldResources', () => {
  it('adds a tracked table and a permission to an existing source and reports them applied', () => {
    const r = foldResources({
      current: docWith([source]),
      resources: [
        res('TrackedTable', 'author', { table: 'author', configuration: { custom_name: 'writer' } }),
        res('Permission', 'author-user-select', { table: 'author', role: 'user', operation: 'select', permission: { columns: ['id'], filter: {} } }),
      ],
      previousManaged: [],
      policy: 'Merge',
    });
    expect(r.changed).toBe(true);
    const t = r.desired.sources[0]?.tables[0];
    expect(t?.table).toEqual(author);
    expect(t?.configuration).toEqual({ custom_name: 'writer' });
    expect(t?.select_permissions).toEqual([{ role: 'user', permission: { columns: ['id'], filter: {} } }]);
    expect(r.managed).toEqual(['permission/default/public.author/user/select', 'table/default/public.author', 'table_configuration/default/public.author']);
    expect([...r.results.values()].every((x) => x.state === 'applied')).toBe(true);
  });

  it('writes nothing when the document already holds what the resources declare', () => {
    const resources = [res('TrackedTable', 'author', { table: 'author' })];
    const first = foldResources({ current: docWith([source]), resources, previousManaged: [], policy: 'Merge' });
    const second = foldResources({ current: first.desired, resources, previousManaged: first.managed, policy: 'Merge' });
    expect(second.changed).toBe(false);
  });

  it('leaves undeclared objects alone under Merge and removes them under Exclusive', () => {
    const other = { ...emptyTable({ schema: 'public', name: 'other' }) };
    const current = docWith([{ ...source, tables: [other] }]);
    const resources = [res('TrackedTable', 'author', { table: 'author' })];
    const merge = foldResources({ current, resources, previousManaged: [], policy: 'Merge' });
    expect(merge.desired.sources[0]?.tables.map((t) => t.table.name)).toEqual(['other', 'author']);
    const exclusive = foldResources({
      current,
      resources: [res('Source', 'default', { configuration: source.configuration }), ...resources],
      previousManaged: [],
      policy: 'Exclusive',
    });
    expect(exclusive.desired.sources[0]?.tables.map((t) => t.table.name)).toEqual(['author']);
  });

  it('under Exclusive keeps the undeclared source its declared tables live in, and drops only what nothing needs (issue 36.7)', () => {
    const other = { ...emptyTable({ schema: 'public', name: 'other' }) };
    const current = docWith([{ ...source, tables: [other] }]);
    const r = foldResources({ current, resources: [res('TrackedTable', 'author', { table: 'author' })], previousManaged: [], policy: 'Exclusive' });
    expect(r.diff.removed).toEqual(['table/default/public.other']);
    expect(r.desired.sources.map((s) => s.name)).toEqual(['default']);
    expect(r.desired.sources[0]?.tables.map((t) => t.table.name)).toEqual(['author']);
    expect([...r.results.values()].map((x) => x.state)).toEqual(['applied']);
    // The source is kept, not taken over: it is not in managedObjects.
    expect(r.managed).toEqual(['table/default/public.author']);
    // With no resource at all, Exclusive still removes it.
    expect(foldResources({ current, resources: [], previousManaged: [], policy: 'Exclusive' }).desired.sources).toEqual([]);
  });

  it('removes a previously managed object that nothing declares any more', () => {
    const first = foldResources({
      current: docWith([source]),
      resources: [res('TrackedTable', 'author', { table: 'author' })],
      previousManaged: [],
      policy: 'Merge',
    });
    const after = foldResources({ current: first.desired, resources: [], previousManaged: first.managed, policy: 'Merge' });
    expect(after.desired.sources[0]?.tables).toEqual([]);
    expect(after.managed).toEqual([]);
  });

  it('never prunes nor releases what an unbound resource declares, and pauses pruning for an unreadable one', () => {
    const author = res('TrackedTable', 'author', { table: 'author' });
    const perm = res('Permission', 'author-user-select', { table: 'author', role: 'user', operation: 'select', permission: { columns: ['id'], filter: {} } });
    const first = foldResources({ current: docWith([source]), resources: [author, perm], previousManaged: [], policy: 'Merge' });
    // Both became unbound (a second Engine): this Engine folds nothing but keeps them.
    const protectedKeys = new Set(['table/default/public.author', 'permission/default/public.author/user/select']);
    const kept = foldResources({ current: first.desired, resources: [], previousManaged: first.managed, policy: 'Merge', protectedKeys });
    expect(kept.changed).toBe(false);
    expect(kept.managed).toEqual(first.managed);
    // Under Exclusive too (where the source must be declared as well).
    const withSource = new Set([...protectedKeys, 'source/default']);
    expect(
      foldResources({ current: first.desired, resources: [], previousManaged: first.managed, policy: 'Exclusive', protectedKeys: withSource }).changed,
    ).toBe(false);
    // Only the permission is unbound (a typo in its engineRef): the bound table stays, nothing goes.
    const typo = foldResources({
      current: first.desired,
      resources: [author],
      previousManaged: first.managed,
      policy: 'Merge',
      protectedKeys: new Set(['permission/default/public.author/user/select']),
    });
    expect(typo.changed).toBe(false);
    expect(typo.managed).toContain('permission/default/public.author/user/select');
    // An unbound resource whose spec is unreadable: nothing is pruned.
    expect(foldResources({ current: first.desired, resources: [], previousManaged: first.managed, policy: 'Merge', pausePruning: true }).changed).toBe(false);
    // Without protection (the resource was deleted or bound elsewhere) it goes.
    expect(foldResources({ current: first.desired, resources: [author], previousManaged: first.managed, policy: 'Merge' }).diff.removed).toEqual([
      'permission/default/public.author/user/select',
    ]);
  });

  it('deletes with policy Delete and keeps with policy Orphan', () => {
    const perm = { table: 'author', role: 'user', operation: 'select', permission: { columns: '*' } };
    const base = foldResources({
      current: docWith([source]),
      resources: [res('TrackedTable', 'author', { table: 'author' }), res('Permission', 'p', perm)],
      previousManaged: [],
      policy: 'Merge',
    });
    const deleting = { deletionTimestamp: '2026-01-02T00:00:00Z', finalizers: ['graphql.engine.dev/finalizer'] };
    const del = foldResources({
      current: base.desired,
      resources: [res('TrackedTable', 'author', { table: 'author' }), res('Permission', 'p', perm, deleting)],
      previousManaged: base.managed,
      policy: 'Merge',
    });
    expect(del.desired.sources[0]?.tables[0]?.select_permissions).toEqual([]);
    expect(del.results.get('Permission/ns/p')).toEqual({ state: 'removed', objectKey: 'permission/default/public.author/user/select' });
    const orphan = foldResources({
      current: base.desired,
      resources: [res('TrackedTable', 'author', { table: 'author' }), res('Permission', 'p', { ...perm, deletionPolicy: 'Orphan' }, deleting)],
      previousManaged: base.managed,
      policy: 'Merge',
    });
    expect(orphan.desired.sources[0]?.tables[0]?.select_permissions).toHaveLength(1);
    expect(orphan.managed).toEqual(['table/default/public.author']);
  });

  it('reports the younger of two resources declaring one object as a conflict and pauses pruning', () => {
    const first = foldResources({
      current: docWith([source]),
      resources: [res('TrackedTable', 'a', { table: 'author' }), res('TrackedTable', 'b', { table: 'book' })],
      previousManaged: [],
      policy: 'Merge',
    });
    const r = foldResources({
      current: first.desired,
      resources: [
        res('TrackedTable', 'old', { table: 'author' }, { creationTimestamp: '2020-01-01T00:00:00Z' }),
        res('TrackedTable', 'new', { table: 'author' }),
      ],
      previousManaged: first.managed,
      policy: 'Merge',
    });
    expect(r.results.get('TrackedTable/ns/new')).toMatchObject({ state: 'conflict' });
    expect(r.results.get('TrackedTable/ns/old')).toMatchObject({ state: 'applied' });
    // book is no longer declared, but pruning waits until the conflict is resolved.
    expect(r.desired.sources[0]?.tables.map((t) => t.table.name)).toEqual(['author', 'book']);
    expect(r.managed).toContain('table/default/public.book');
  });

  it('reports a spec the engine schema refuses as invalid, without touching the document', () => {
    const r = foldResources({
      current: docWith([source]),
      resources: [res('Permission', 'bad', { table: 'author', role: 'user', operation: 'select', permission: { filter: {} } })],
      previousManaged: [],
      policy: 'Merge',
    });
    expect(r.results.get('Permission/ns/bad')).toMatchObject({ state: 'invalid' });
    expect(r.changed).toBe(false);
  });

  it('reports a permission on an untracked table as a missing dependency', () => {
    const r = foldResources({
      current: docWith([source]),
      resources: [res('Permission', 'p', { table: 'nope', role: 'user', operation: 'delete', permission: { filter: {} } })],
      previousManaged: [],
      policy: 'Merge',
    });
    expect(r.results.get('Permission/ns/p')).toEqual({
      state: 'dependency',
      objectKey: 'permission/default/public.nope/user/delete',
      message: 'table nope is not tracked in source default',
    });
  });

  it('folds sources, remote schemas, cron and event triggers', () => {
    const r = foldResources({
      current: EMPTY_DOCUMENT,
      resources: [
        res('Source', 'default', { configuration: { connection_info: { database_url: { from_env: 'DB' } } } }),
        res('TrackedTable', 't', { table: { schema: 'shop', name: 'order' } }),
        res('EventTrigger', 'order-created', { table: { schema: 'shop', name: 'order' }, webhook: 'http://hook', insert: { columns: '*' } }),
        res('RemoteSchema', 'countries', { definition: { url: 'http://countries' } }),
        res('CronTrigger', 'nightly', { webhook: 'http://cron', schedule: '0 0 * * *' }),
      ],
      previousManaged: [],
      policy: 'Merge',
    });
    expect([...documentKeys(r.desired)].sort()).toEqual([
      'cron_trigger/nightly',
      'event_trigger/default/shop.order/order-created',
      'remote_schema/countries',
      'source/default',
      'table/default/shop.order',
    ]);
    expect(r.desired.sources[0]?.tables[0]?.event_triggers[0]).toMatchObject({
      name: 'order-created',
      definition: { enable_manual: false, insert: { columns: '*' } },
    });
    expect(r.desired.cron_triggers[0]).toMatchObject({ name: 'nightly', include_in_metadata: true });
  });

  describe('ownership of parts (adoption never deletes)', () => {
    const rel = (name: string, col: string): { name: string; using: { foreign_key_constraint_on: string } } => ({
      name,
      using: { foreign_key_constraint_on: col },
    });
    const tracked = {
      ...emptyTable(author),
      configuration: { custom_name: 'writer' },
      object_relationships: [rel('publisher', 'publisher_id')],
      select_permissions: [{ role: 'guest', permission: { columns: '*' as const, filter: {} } }],
    };
    const adopted = docWith([{ ...source, tables: [tracked] }]);

    it('adopting a tracked table leaves its undeclared relationships, configuration and permissions alone', () => {
      const r = foldResources({
        current: adopted,
        resources: [res('TrackedTable', 'author', { table: 'author', object_relationships: [rel('editor', 'editor_id')] })],
        previousManaged: [],
        policy: 'Merge',
      });
      const t = r.desired.sources[0]?.tables[0];
      expect(t?.object_relationships.map((x) => x.name)).toEqual(['publisher', 'editor']);
      expect(t?.configuration).toEqual({ custom_name: 'writer' });
      expect(t?.select_permissions).toHaveLength(1);
      expect(r.diff).toEqual({ added: ['relationship/default/public.author/editor'], changed: [], removed: [] });
      expect(r.managed).toEqual(['relationship/default/public.author/editor', 'table/default/public.author']);
    });

    it('removing a part from the spec removes only that part', () => {
      const first = foldResources({
        current: adopted,
        resources: [res('TrackedTable', 'author', { table: 'author', object_relationships: [rel('editor', 'editor_id')] })],
        previousManaged: [],
        policy: 'Merge',
      });
      const r = foldResources({
        current: first.desired,
        resources: [res('TrackedTable', 'author', { table: 'author' })],
        previousManaged: first.managed,
        policy: 'Merge',
      });
      expect(r.desired.sources[0]?.tables[0]?.object_relationships.map((x) => x.name)).toEqual(['publisher']);
      expect(r.diff.removed).toEqual(['relationship/default/public.author/editor']);
    });

    it('deleting the resource of an adopted table keeps the table with what nobody declares, and says why', () => {
      const first = foldResources({
        current: adopted,
        resources: [res('TrackedTable', 'author', { table: 'author', object_relationships: [rel('editor', 'editor_id')] })],
        previousManaged: [],
        policy: 'Merge',
      });
      const deleting = res(
        'TrackedTable',
        'author',
        { table: 'author', object_relationships: [rel('editor', 'editor_id')] },
        { deletionTimestamp: '2026-01-02T00:00:00Z' },
      );
      const r = foldResources({ current: first.desired, resources: [deleting], previousManaged: first.managed, policy: 'Merge' });
      const t = r.desired.sources[0]?.tables[0];
      expect(t?.object_relationships.map((x) => x.name)).toEqual(['publisher']);
      expect(t?.select_permissions).toHaveLength(1);
      expect(r.diff.removed).toEqual(['relationship/default/public.author/editor']);
      expect(r.kept).toEqual([
        {
          key: 'table/default/public.author',
          holds: ['permission/default/public.author/guest/select', 'relationship/default/public.author/publisher', 'table_configuration/default/public.author'],
        },
      ]);
      expect(r.results.get('TrackedTable/ns/author')).toMatchObject({ state: 'removed', kept: ['table/default/public.author'] });
      expect(r.managed).toEqual([]);
    });

    it('deleting a table the operator created, with only managed parts, removes it', () => {
      const perm = res('Permission', 'p', { table: 'author', role: 'user', operation: 'select', permission: { columns: '*' } });
      const first = foldResources({
        current: docWith([source]),
        resources: [res('TrackedTable', 'author', { table: 'author' }), perm],
        previousManaged: [],
        policy: 'Merge',
      });
      const deleting = { deletionTimestamp: '2026-01-02T00:00:00Z' };
      const r = foldResources({
        current: first.desired,
        resources: [res('TrackedTable', 'author', { table: 'author' }, deleting), res('Permission', 'p', perm.spec, deleting)],
        previousManaged: first.managed,
        policy: 'Merge',
      });
      expect(r.desired.sources[0]?.tables).toEqual([]);
      expect(r.kept).toEqual([]);
    });

    it('under Exclusive removes undeclared parts of a declared table', () => {
      const r = foldResources({
        current: adopted,
        resources: [res('Source', 'default', { configuration: source.configuration }), res('TrackedTable', 'author', { table: 'author' })],
        previousManaged: [],
        policy: 'Exclusive',
      });
      const t = r.desired.sources[0]?.tables[0];
      expect(t?.object_relationships).toEqual([]);
      expect(t?.configuration).toBeUndefined();
      expect(t?.select_permissions).toEqual([]);
      expect(r.diff.removed).toEqual([
        'permission/default/public.author/guest/select',
        'relationship/default/public.author/publisher',
        'table_configuration/default/public.author',
      ]);
    });
  });

  it('folds functions with their permissions and inherited roles', () => {
    const r = foldResources({
      current: docWith([source]),
      resources: [
        res('Function', 'search', {
          function: { schema: 'public', name: 'search_books' },
          configuration: { exposed_as: 'query' },
          permissions: [{ role: 'user' }],
        }),
        res('InheritedRole', 'staff', { role_set: ['user', 'editor'] }),
      ],
      previousManaged: [],
      policy: 'Merge',
    });
    expect(r.desired.sources[0]?.functions).toEqual([
      { function: { schema: 'public', name: 'search_books' }, configuration: { exposed_as: 'query' }, permissions: [{ role: 'user' }] },
    ]);
    expect(r.desired.inherited_roles).toEqual([{ role_name: 'staff', role_set: ['user', 'editor'] }]);
    expect(r.managed).toEqual(['function/default/public.search_books', 'function_permission/default/public.search_books/user', 'inherited_role/staff']);
    const dropped = foldResources({
      current: r.desired,
      resources: [res('Function', 'search', { function: { schema: 'public', name: 'search_books' }, configuration: { exposed_as: 'query' } })],
      previousManaged: r.managed,
      policy: 'Merge',
    });
    expect(dropped.desired.sources[0]?.functions[0]?.permissions).toEqual([]);
    expect(dropped.desired.inherited_roles).toEqual([]);
    expect(dropped.diff.removed).toEqual(['function_permission/default/public.search_books/user', 'inherited_role/staff']);
  });

  it('folds an action with its permissions, keeping permissions nobody declares on adoption', () => {
    const existing: MetadataDocument = {
      ...docWith([source]),
      actions: [{ name: 'hello', definition: { handler: 'http://old', output_type: 'String' }, permissions: [{ role: 'manual' }] }],
    };
    const r = foldResources({
      current: existing,
      resources: [
        res('Action', 'hello', { definition: { handler: '{{BASE}}/hello', output_type: 'String!', type: 'query' }, permissions: [{ role: 'user' }] }),
      ],
      previousManaged: [],
      policy: 'Merge',
    });
    expect(r.desired.actions).toEqual([
      { name: 'hello', definition: { handler: '{{BASE}}/hello', output_type: 'String!', type: 'query' }, permissions: [{ role: 'manual' }, { role: 'user' }] },
    ]);
    expect(r.managed).toEqual(['action/hello', 'action_permission/hello/user']);
    const gone = foldResources({
      current: r.desired,
      resources: [res('Action', 'hello', { definition: { handler: '{{BASE}}/hello', output_type: 'String!' } }, { deletionTimestamp: '2026-01-02T00:00:00Z' })],
      previousManaged: r.managed,
      policy: 'Merge',
    });
    // The action holds a permission no resource declares: under Merge it stays, only our permission goes.
    expect(gone.desired.actions).toEqual([
      { name: 'hello', definition: { handler: '{{BASE}}/hello', output_type: 'String!', type: 'query' }, permissions: [{ role: 'manual' }] },
    ]);
    expect(gone.kept).toEqual([{ key: 'action/hello', holds: ['action_permission/hello/manual'] }]);
    const exclusive = foldResources({ current: r.desired, resources: [], previousManaged: r.managed, policy: 'Exclusive' });
    expect(exclusive.desired.actions).toEqual([]);
  });

  it('merges several CustomTypes into the one custom_types object and reports a type defined twice as a conflict', () => {
    const a = res('CustomTypes', 'team-a', { objects: [{ name: 'Greeting', fields: [{ name: 'text', type: 'String!' }] }], scalars: [{ name: 'Money' }] });
    const b = res('CustomTypes', 'team-b', { input_objects: [{ name: 'Ask', fields: [{ name: 'who', type: 'String' }] }] });
    const c = res('CustomTypes', 'team-c', {
      enums: [{ name: 'Mood', values: [{ value: 'HAPPY' }] }],
      objects: [{ name: 'Greeting', fields: [{ name: 'x', type: 'Int' }] }],
    });
    const r = foldResources({ current: docWith([source]), resources: [a, b, c], previousManaged: [], policy: 'Merge' });
    expect(r.desired.custom_types).toEqual({
      input_objects: [{ name: 'Ask', fields: [{ name: 'who', type: 'String' }] }],
      objects: [{ name: 'Greeting', fields: [{ name: 'text', type: 'String!' }] }],
      scalars: [{ name: 'Money' }],
    });
    const conflict = r.results.get('CustomTypes/ns/team-c');
    expect(conflict).toMatchObject({ state: 'conflict', message: 'CustomTypes/ns/team-a already declares custom_type/Greeting' });
    expect(r.results.get('CustomTypes/ns/team-b')?.state).toBe('applied');
    expect(r.managed).toEqual(['custom_type/Ask', 'custom_type/Greeting', 'custom_type/Money']);
    // Unchanged input, unchanged document: nothing to write.
    expect(foldResources({ current: r.desired, resources: [a, b], previousManaged: r.managed, policy: 'Merge' }).changed).toBe(false);
    // Removing team-b's resource removes only its type.
    const without = foldResources({ current: r.desired, resources: [a], previousManaged: r.managed, policy: 'Merge' });
    expect(without.diff.removed).toEqual(['custom_type/Ask']);
    expect(without.desired.custom_types).toEqual({
      objects: [{ name: 'Greeting', fields: [{ name: 'text', type: 'String!' }] }],
      scalars: [{ name: 'Money' }],
    });
  });

  it('folds a query collection with its allow-list entry and an endpoint that waits for its collection', () => {
    const queries = [{ name: 'one', query: 'query one { a { id } }' }];
    const endpoint = res('RestEndpoint', 'get-one', { url: 'one', methods: ['GET'], definition: { query: { collection_name: 'reads', query_name: 'one' } } });
    const waiting = foldResources({ current: docWith([source]), resources: [endpoint], previousManaged: [], policy: 'Merge' });
    expect(waiting.results.get('RestEndpoint/ns/get-one')).toMatchObject({
      state: 'dependency',
      message: "query collection reads is not in the engine's metadata",
    });
    expect(waiting.changed).toBe(false);
    const coll = res('QueryCollection', 'reads', { queries, allowlist: { scope: { global: false, roles: ['user'] } } });
    const r = foldResources({ current: docWith([source]), resources: [coll, endpoint], previousManaged: [], policy: 'Merge' });
    expect(r.desired.query_collections).toEqual([{ name: 'reads', definition: { queries } }]);
    expect(r.desired.allowlist).toEqual([{ collection: 'reads', scope: { global: false, roles: ['user'] } }]);
    expect(r.desired.rest_endpoints).toEqual([
      { name: 'get-one', url: 'one', methods: ['GET'], definition: { query: { collection_name: 'reads', query_name: 'one' } } },
    ]);
    expect(r.managed).toEqual(['allowlist/reads', 'query_collection/reads', 'rest_endpoint/get-one']);
    // Dropping the allow-list field removes just the entry.
    const unlisted = foldResources({
      current: r.desired,
      resources: [res('QueryCollection', 'reads', { queries }), endpoint],
      previousManaged: r.managed,
      policy: 'Merge',
    });
    expect(unlisted.diff).toEqual({ added: [], changed: [], removed: ['allowlist/reads'] });
    // Deleting the collection while its endpoint still exists: the endpoint waits again.
    const deleted = foldResources({
      current: r.desired,
      resources: [res('QueryCollection', 'reads', { queries }, { deletionTimestamp: '2026-01-02T00:00:00Z' }), endpoint],
      previousManaged: r.managed,
      policy: 'Merge',
    });
    expect(deleted.desired.query_collections).toEqual([]);
    expect(deleted.desired.allowlist).toEqual([]);
    expect(deleted.desired.rest_endpoints).toEqual([]);
    expect(deleted.results.get('RestEndpoint/ns/get-one')?.state).toBe('dependency');
  });

  it('keeps a deleted collection that an endpoint nobody declares still reads (Merge)', () => {
    const queries = [{ name: 'one', query: 'query one { a { id } }' }];
    const current: MetadataDocument = {
      ...docWith([source]),
      query_collections: [{ name: 'reads', definition: { queries } }],
      rest_endpoints: [{ name: 'manual', url: 'm', methods: ['GET'], definition: { query: { collection_name: 'reads', query_name: 'one' } } }],
    };
    const r = foldResources({
      current,
      resources: [res('QueryCollection', 'reads', { queries }, { deletionTimestamp: '2026-01-02T00:00:00Z' })],
      previousManaged: ['query_collection/reads'],
      policy: 'Merge',
    });
    expect(r.kept).toEqual([{ key: 'query_collection/reads', holds: ['rest_endpoint/manual'] }]);
    expect(r.desired.query_collections).toHaveLength(1);
  });

  it('refuses an action name that is not a GraphQL name and a REST method the engine does not serve', () => {
    const r = foldResources({
      current: docWith([source]),
      resources: [
        res('Action', 'send-mail', { definition: { handler: 'http://x', output_type: 'String' } }),
        res('RestEndpoint', 'e', { url: 'x', methods: ['get'], definition: { query: { collection_name: 'c', query_name: 'q' } } }),
      ],
      previousManaged: [],
      policy: 'Merge',
    });
    expect(r.results.get('Action/ns/send-mail')).toMatchObject({ state: 'invalid', message: expect.stringContaining('set spec.name') });
    expect(r.results.get('RestEndpoint/ns/e')).toMatchObject({ state: 'invalid' });
    expect(r.changed).toBe(false);
  });

  it("reads a bare table name in its source kind's default schema: dbo on an MSSQL Source", () => {
    const mssql = res('Source', 'shop', { kind: 'mssql', configuration: { connection_info: { connection_string: { from_env: 'SHOP' } } } });
    const resources = [
      mssql,
      res('TrackedTable', 'customer', { source: 'shop', table: 'customer' }),
      res('Permission', 'customer-user-select', {
        source: 'shop',
        table: 'customer',
        role: 'user',
        operation: 'select',
        permission: { columns: ['id'], filter: {} },
      }),
      res('TrackedTable', 'author', { table: 'author' }),
    ];
    const r = foldResources({ current: docWith([source]), resources, previousManaged: [], policy: 'Merge' });
    const shop = r.desired.sources.find((s) => s.name === 'shop');
    expect(shop?.kind).toBe('mssql');
    expect(shop?.tables.map((t) => t.table)).toEqual([{ schema: 'dbo', name: 'customer' }]);
    expect(shop?.tables[0]?.select_permissions).toEqual([{ role: 'user', permission: { columns: ['id'], filter: {} } }]);
    expect(r.desired.sources.find((s) => s.name === 'default')?.tables.map((t) => t.table)).toEqual([author]);
    expect(r.managed).toEqual(expect.arrayContaining(['table/shop/dbo.customer', 'permission/shop/dbo.customer/user/select', 'table/default/public.author']));
    const bad = foldResources({
      current: docWith([source]),
      resources: [res('Source', 'bad', { kind: 'mssql', configuration: { connection_info: { connection_string: { from_env: 1 } } } })],
      previousManaged: [],
      policy: 'Merge',
    });
    expect(bad.results.get('Source/ns/bad')).toMatchObject({ state: 'invalid', message: expect.stringContaining('an mssql source needs a connection string') });
    // An MSSQL source the engine already has (added around the operator) counts too.
    const managed = r.managed.filter((k) => k !== 'source/shop');
    const again = foldResources({ current: r.desired, resources: resources.slice(1), previousManaged: managed, policy: 'Merge' });
    expect(again.changed).toBe(false);
    expect(again.managed).toEqual(managed);
  });
});
