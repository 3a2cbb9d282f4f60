import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../engine/catalog/build.ts';
import { CatalogVersions } from '../../../engine/catalog/version.ts';
import { resolveRelationships } from '../../../engine/catalog/stages/relationships.ts';
import { resolveSources } from '../../../engine/catalog/stages/sources.ts';
import { linkEnumTables, resolveTables } from '../../../engine/catalog/stages/tracked-tables.ts';
import { fixture } from '../../support/synthetic-source.ts';

describe('buildCatalog', () => {
  it('resolves tables, relationships and permissions', () => {
    const { doc, prepared } = fixture(3);
    const c = buildCatalog(doc, prepared, { version: 3, resourceVersion: 7 });
    expect(c.inconsistencies).toEqual([]);
    expect(c.resourceVersion).toBe(7);
    expect(c.roles).toEqual(['user']);
    const t1 = c.sources.get('default')?.tables.get('public.t1');
    expect(t1?.relationships.map((r) => [r.name, r.kind, r.target.name])).toEqual([
      ['parent', 'object', 't0'],
      ['children', 'array', 't2'],
    ]);
    expect(t1?.permissions.get('user')?.select?.columns).toHaveLength(8);
  });

  it('carries the version its caller numbers it with, and depends on its arguments only', () => {
    const { doc, prepared } = fixture(3);
    const versions = new CatalogVersions();
    const a = buildCatalog(doc, prepared, { version: versions.next(), resourceVersion: 1 });
    const b = buildCatalog(doc, prepared, { version: versions.next(), resourceVersion: 1 });
    expect(b.version).toBeGreaterThan(a.version);
    // No hidden state between builds: the same arguments give the same catalog.
    const again = buildCatalog(doc, prepared, { version: a.version, resourceVersion: 1 });
    expect(again.version).toBe(a.version);
    expect(again.inconsistencies).toEqual(a.inconsistencies);
    expect([...again.sources.get('default')!.tables.keys()]).toEqual([...a.sources.get('default')!.tables.keys()]);
  });

  it('builds 500 related tables without inconsistencies', () => {
    const { doc, prepared } = fixture(500);
    const c = buildCatalog(doc, prepared, { version: 1, resourceVersion: 1 });
    expect(c.sources.get('default')?.tables.size).toBe(500);
    expect(c.inconsistencies).toEqual([]);
  });

  it('lists each stage’s inconsistencies in stage order, as the stages return them', () => {
    const { doc, prepared } = fixture(3);
    const ready = prepared.get('default');
    if (ready === undefined || !ready.ok) throw new Error('fixture');
    const tables = new Map(ready.introspection.tables);
    tables.delete('public.t1');
    const without = new Map([['default', { ...ready, introspection: { ...ready.introspection, tables } }]]);
    const c = buildCatalog(doc, without, { version: 1, resourceVersion: 1 });
    expect(c.inconsistencies.map((o) => o.name)).toEqual([
      'table t1 in source default',
      'relationship children in table t0 in source default',
      'relationship parent in table t1 in source default',
      'relationship children in table t1 in source default',
      'relationship parent in table t2 in source default',
      'permission t1.user.select in source default',
      'permission t2.user.select in source default',
    ]);
    // The relationships stage alone returns exactly its part, from explicit inputs.
    const sources = resolveSources(doc, without).output;
    const rels = resolveRelationships(linkEnumTables(resolveTables(sources).output.tables));
    expect(rels.inconsistencies).toEqual(c.inconsistencies.slice(1, 5));
    expect([...(rels.output.get(sources[0]!)?.keys() ?? [])]).toEqual(['public.t0', 'public.t2']);
  });
});
