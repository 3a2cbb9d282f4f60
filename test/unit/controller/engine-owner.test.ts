import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../controller/api/v1alpha1/engine.ts';
import { TAKE_OWNERSHIP_ANNOTATION, decideOwnership, ownerOf } from '../../../controller/reconcilers/engine-owner.ts';

const engine = (namespace: string, name: string, uid: string, created: string, extra: Partial<Engine['metadata']> = {}): Engine => ({
  apiVersion: 'graphql.engine.dev/v1alpha1',
  kind: 'Engine',
  metadata: { name, namespace, uid, creationTimestamp: created, ...extra },
  spec: { url: 'http://e:8080' },
});

describe('decideOwnership', () => {
  const older = engine('a', 'main', 'uid-a', '2026-01-01T00:00:00Z');
  const newer = engine('b', 'main', 'uid-b', '2026-01-02T00:00:00Z');
  const cache =
    (...es: Engine[]) =>
    (ns: string, name: string) =>
      es.find((e) => e.metadata.namespace === ns && e.metadata.name === name);

  it('records the first Engine and keeps its own record', () => {
    expect(decideOwnership(older, null, cache(older))).toEqual({ own: true, write: true });
    expect(decideOwnership(older, ownerOf(older), cache(older))).toEqual({ own: true, write: false });
  });

  it('refuses the newer of two live Engines, and lets the older take over from a newer one', () => {
    const refused = decideOwnership(newer, ownerOf(older), cache(older, newer));
    expect(refused.own).toBe(false);
    expect(!refused.own && refused.message).toContain('managed by Engine a/main (uid uid-a)');
    expect(decideOwnership(older, ownerOf(newer), cache(older, newer))).toEqual({ own: true, write: true });
  });

  it('takes over from an owner being deleted, from its own recreated name, and with the annotation', () => {
    const deleting = engine('a', 'main', 'uid-a', '2026-01-01T00:00:00Z', { deletionTimestamp: '2026-01-03T00:00:00Z' });
    expect(decideOwnership(newer, ownerOf(deleting), cache(deleting, newer))).toEqual({ own: true, write: true });
    const recreated = engine('a', 'main', 'uid-a2', '2026-01-04T00:00:00Z');
    expect(decideOwnership(recreated, ownerOf(older), cache(recreated))).toEqual({ own: true, write: true });
    // An owner this operator does not see (another cluster): refused unless annotated.
    const unseen = decideOwnership(newer, { uid: 'x', namespace: 'c', name: 'other' }, cache(newer));
    expect(!unseen.own && unseen.message).toContain(TAKE_OWNERSHIP_ANNOTATION);
    const annotated = engine('b', 'main', 'uid-b', '2026-01-02T00:00:00Z', { annotations: { [TAKE_OWNERSHIP_ANNOTATION]: 'true' } });
    expect(decideOwnership(annotated, { uid: 'x', namespace: 'c', name: 'other' }, cache(annotated))).toEqual({ own: true, write: true });
  });
});
