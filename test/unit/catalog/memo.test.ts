/**
 * A catalog built from the previous one (Note [Catalog memo] in
 * engine/catalog/memo.ts) must equal a catalog built from nothing, whatever
 * the change: every step below changes something another table's results
 * read (a relationship's target, a permission's path, a name, the inherited
 * roles, an introspected column), and the incremental build must see it.
 */
import { describe, expect, it } from 'vitest';
import type { IntrospectedTable } from '../../../engine/backends/introspection.ts';
import { buildCatalog } from '../../../engine/catalog/build.ts';
import type { PreparedSources } from '../../../engine/catalog/prepared.ts';
import type { Catalog } from '../../../engine/catalog/types.ts';
import { emptyTable, type MetadataDocument, type TableMetadata } from '../../../engine/model/document.ts';
import { updateSource, updateTable } from '../../../engine/metadata/edit.ts';
import { fixture, table } from '../../support/synthetic-source.ts';

/** Everything a catalog says, as plain data (Maps and Sets as entry lists; connections and functions left out). */
function plain(c: Catalog): unknown {
  return JSON.parse(
    JSON.stringify({ ...c, sources: [...c.sources.values()].map((s) => ({ ...s, connection: null })) }, (_k, v: unknown) => {
      if (v instanceof Map) return [...v.entries()];
      if (v instanceof Set) return [...v.values()];
      return typeof v === 'function' ? '<fn>' : v;
    }),
  );
}

const stamp = { version: 1, resourceVersion: 1 };

/** With a different introspection of table `name` (a new object, as a re-read gives). */
function reintrospect(prepared: PreparedSources, name: string, t: IntrospectedTable | null): PreparedSources {
  const ready = prepared.get('default');
  if (ready === undefined || !ready.ok) throw new Error('fixture');
  const tables = new Map(ready.introspection.tables);
  if (t === null) tables.delete(`public.${name}`);
  else tables.set(`public.${name}`, t);
  return new Map([['default', { ...ready, introspection: { ...ready.introspection, tables } }]]);
}

type Step = [string, (d: MetadataDocument) => MetadataDocument, ((p: PreparedSources) => PreparedSources)?];

/** `doc` with table `t<i>` tracked at the end, with a `parent` relationship and a permission through it. */
function appendTable(doc: MetadataDocument, i: number): MetadataDocument {
  const entry: TableMetadata = {
    ...emptyTable({ schema: 'public', name: `t${i}` }),
    object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
    select_permissions: [{ role: 'user', permission: { columns: '*', filter: { parent: { a: { _eq: 'X-Engine-User-Id' } } } } }],
  };
  return updateSource(doc, 'default', (s) => ({ ...s, tables: [...s.tables, entry] }));
}

function edit(doc: MetadataDocument, name: string, fn: (t: TableMetadata) => TableMetadata | null): MetadataDocument {
  return updateTable(doc, 'default', { schema: 'public', name }, fn);
}

describe('incremental catalog builds', () => {
  it('equal a build from scratch after each kind of change, and keep the tables nothing touched', () => {
    const start = fixture(6);
    const { doc: doc0 } = start;
    let prepared = start.prepared;
    const t1 = doc0.sources[0]?.tables[1];
    if (t1 === undefined) throw new Error('fixture');
    const steps: Step[] = [
      // t0.children and t2.parent point at t1; t2's permission goes through parent.
      ['untrack t1', (d) => edit(d, 't1', () => null)],
      ['track t1 again', (d) => updateSource(d, 'default', (s) => ({ ...s, tables: [...s.tables.slice(0, 1), t1, ...s.tables.slice(1)] }))],
      // t4's permission reads column `a` of t3 through `parent`.
      [
        'drop column a of t3',
        (d) => d,
        (p) => reintrospect(p, 't3', { ...table('t3', 't2'), columns: table('t3', 't2').columns.filter((c) => c.name !== 'a') }),
      ],
      ['add column a back', (d) => d, (p) => reintrospect(p, 't3', table('t3', 't2'))],
      ['t5 named like t4', (d) => edit(d, 't5', (t) => ({ ...t, configuration: { ...t.configuration, custom_name: 't4' } }))],
      ['t4 renamed away', (d) => edit(d, 't4', (t) => ({ ...t, configuration: { ...t.configuration, custom_name: 'other' } }))],
      ['an inherited role', (d) => ({ ...d, inherited_roles: [{ role_name: 'both', role_set: ['user', 'editor'] }] })],
      [
        'a second role on t2',
        (d) => edit(d, 't2', (t) => ({ ...t, select_permissions: [...t.select_permissions, { role: 'editor', permission: { columns: ['id'], filter: {} } }] })),
      ],
      ['the foreign key of t2 dropped', (d) => d, (p) => reintrospect(p, 't2', { ...table('t2', 't1'), foreignKeys: [] })],
      ['t0 gone from the database', (d) => d, (p) => reintrospect(p, 't0', null)],
      ['t0 back', (d) => d, (p) => reintrospect(p, 't0', table('t0', null))],
      // Name claims repeat the previous build's while the tables are the same and in the same order (Note [Layered
      // name claims]): past its end, short of it, and more times than layers are kept.
      ...Array.from({ length: 10 }, (_, k): Step => [
        `t${6 + k} tracked at the end`,
        (d) => appendTable(d, 6 + k),
        (p) => reintrospect(p, `t${6 + k}`, table(`t${6 + k}`, `t${5 + k}`)),
      ]),
      ['t7 named like t15, before it', (d) => edit(d, 't7', (t) => ({ ...t, configuration: { ...t.configuration, custom_name: 't15' } }))],
      ['the last table untracked', (d) => edit(d, 't15', () => null)],
      ['and tracked again', (d) => appendTable(d, 15)],
      // Every claim repeated, t15's clash too.
      [
        'a permission of t2 changed',
        (d) => edit(d, 't2', (t) => ({ ...t, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] })),
      ],
    ];
    let doc = doc0;
    let previous = buildCatalog(doc, prepared, stamp);
    for (const [what, change, rePrepare] of steps) {
      doc = change(doc);
      if (rePrepare !== undefined) prepared = rePrepare(prepared);
      const incremental = buildCatalog(doc, prepared, stamp, undefined, undefined, previous);
      const fresh = buildCatalog(doc, prepared, stamp);
      expect(plain(incremental), what).toEqual(plain(fresh));
      previous = incremental;
    }
    // t7 took t15's names first, so t15, tracked again at the end, clashes.
    expect(previous.inconsistencies.map((o) => o.name)).toContain('table t15 in source default');
  });

  it('reuses the results of tables the change does not reach', () => {
    const { doc, prepared } = fixture(6);
    const before = buildCatalog(doc, prepared, stamp);
    const next = buildCatalog(
      edit(doc, 't5', (t) => ({ ...t, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] })),
      prepared,
      stamp,
      undefined,
      undefined,
      before,
    );
    const tablesOf = (c: Catalog) => c.sources.get('default')?.tables;
    for (const name of ['t0', 't1', 't2', 't3', 't4']) expect(tablesOf(next)?.get(`public.${name}`), name).toBe(tablesOf(before)?.get(`public.${name}`));
    expect(tablesOf(next)?.get('public.t5')).not.toBe(tablesOf(before)?.get('public.t5'));
    expect(tablesOf(next)?.get('public.t5')?.permissions.get('user')?.select?.columns).toEqual(['id']);
  });
});
