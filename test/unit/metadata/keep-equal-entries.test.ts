/**
 * A document read whole keeps the previous document's objects for the
 * entries that did not change (Note [Documents read whole] in
 * engine/metadata/edit.ts), so the catalog build after it reuses their
 * results; a changed entry must stay the new one.
 */
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../engine/catalog/build.ts';
import { keepEqualEntries } from '../../../engine/metadata/edit.ts';
import type { MetadataDocument } from '../../../engine/model/document.ts';
import { fixture } from '../../support/synthetic-source.ts';

/** The same document as parsed again: equal data, no shared objects. */
const reparsed = (d: MetadataDocument): MetadataDocument => JSON.parse(JSON.stringify(d)) as MetadataDocument;

describe('keepEqualEntries', () => {
  it('keeps equal table entries, takes changed and new ones, and the build sees the change', () => {
    const { doc, prepared } = fixture(4);
    const again = reparsed(doc);
    const src = again.sources[0];
    if (src === undefined) throw new Error('fixture');
    const changed = { ...src.tables[2]!, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] };
    const next: MetadataDocument = { ...again, sources: [{ ...src, tables: [src.tables[0]!, src.tables[1]!, changed, src.tables[3]!] }] };
    const kept = keepEqualEntries(doc, next);
    const before = doc.sources[0]!.tables;
    const after = kept.sources[0]!.tables;
    expect(after[0]).toBe(before[0]);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).toBe(changed);
    expect(after[3]).toBe(before[3]);
    const first = buildCatalog(doc, prepared, { version: 1, resourceVersion: 1 });
    const second = buildCatalog(kept, prepared, { version: 2, resourceVersion: 2 }, undefined, undefined, first);
    const t = (c: typeof first, name: string) => c.sources.get('default')?.tables.get(`public.${name}`);
    expect(t(second, 't0')).toBe(t(first, 't0'));
    expect(t(second, 't2')?.permissions.get('user')?.select?.columns).toEqual(['id']);
    expect(t(first, 't2')?.permissions.get('user')?.select?.columns).toHaveLength(8);
  });

  it('answers the new document itself when nothing is equal, and leaves sources it did not have alone', () => {
    const { doc } = fixture(2);
    const other: MetadataDocument = { ...reparsed(doc), sources: [{ ...reparsed(doc).sources[0]!, name: 'other' }] };
    expect(keepEqualEntries(doc, other)).toBe(other);
  });
});
