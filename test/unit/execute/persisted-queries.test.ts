import { describe, expect, it } from 'vitest';
import { PersistedQueries, sha256Hex } from '../../../engine/execute/persisted-queries.ts';

describe('the persisted-query store', () => {
  it('is bounded by the bytes of text it holds, least recently used dropped first', () => {
    const store = new PersistedQueries(30);
    const a = '{ a { id } }'; // 12 bytes
    const b = '{ b { id } }';
    const c = '{ c { id } }';
    store.set(sha256Hex(a), a);
    store.set(sha256Hex(b), b);
    expect(store.get(sha256Hex(a))).toBe(a); // a is now the most recently used
    store.set(sha256Hex(c), c); // 36 bytes: b goes
    expect(store.get(sha256Hex(b))).toBeUndefined();
    expect(store.get(sha256Hex(a))).toBe(a);
    expect(store.get(sha256Hex(c))).toBe(c);
    expect(store.size).toBe(2);
    // A text larger than the whole bound is not kept, and evicts nothing.
    store.set(sha256Hex('x'.repeat(31)), 'x'.repeat(31));
    expect(store.size).toBe(2);
  });
});
