import { describe, expect, it } from 'vitest';
import { newRequestId, RequestContext, requestIdOf } from '../../engine/request-context.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids (Note [Request id strings])', () => {
  it('are version 4 UUIDs, distinct across refills of the random bytes', () => {
    const ids = new Set<string>();
    // More than two fills of 256 ids each.
    for (let i = 0; i < 1000; i++) {
      const id = newRequestId();
      expect(id).toMatch(UUID_V4);
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
  });

  it('is each a string of its own, not a view of a buffer later overwritten', () => {
    const first = newRequestId();
    const copy = `${first}`;
    for (let i = 0; i < 300; i++) newRequestId();
    expect(first).toBe(copy);
  });

  it("keep a client's sane X-Request-Id and replace anything else", () => {
    expect(requestIdOf('abc-123')).toBe('abc-123');
    expect(requestIdOf(undefined)).toMatch(UUID_V4);
    expect(requestIdOf('has space')).toMatch(UUID_V4);
    expect(requestIdOf(['a', 'b'])).toMatch(UUID_V4);
    expect(new RequestContext('127.0.0.1').requestId).toMatch(UUID_V4);
  });
});
