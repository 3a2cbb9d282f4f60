/**
 * The plan cache is bounded by estimated bytes (Note [Plan cache bytes]):
 * LRU within the budget, oversized entries never kept, and operations that
 * failed never cached.
 */
import { describe, expect, it } from 'vitest';
import type { SourceConnection } from '../../../engine/backends/backend.ts';
import { buildSession } from '../../../engine/auth/session.ts';
import { CatalogRef } from '../../../engine/catalog/snapshot.ts';
import { GraphqlService } from '../../../engine/execute/graphql-service.ts';
import { entryBytes, PlanCache, planBytes, type OperationEntry } from '../../../engine/execute/plan-cache.ts';
import type { Plan } from '../../../engine/execute/plan.ts';
import type { RoleOperation } from '../../../engine/graphql/role-operation.ts';
import { silentLogger } from '../../../engine/logger.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

function entry(query: string): OperationEntry {
  return {
    op: null as unknown as RoleOperation,
    structural: [],
    shaped: [],
    plans: new Map(),
    cost: { depth: 1, nodes: 1, fields: 2, introspection: false },
    bytes: entryBytes(query, query),
  };
}

const plan: Plan = { steps: [{ kind: 'static', json: '{"x":1}' }], needsReorder: false, order: [], fields: [] };
const one = entryBytes('q00', 'q00') + planBytes(plan);

describe('PlanCache', () => {
  it('keeps its estimated bytes within the budget, evicting least recently used first', () => {
    const cache = new PlanCache(one * 20);
    for (let i = 0; i < 5; i++) cache.store(1, `q0${i}`, entry(`q0${i}`), '', plan);
    expect(cache.size).toBe(5);
    expect(cache.get(1, 'q00')).toBeDefined(); // q00 is now the most recent
    for (let i = 10; i < 40; i++) {
      cache.store(1, `q${i}`, entry(`q${i}`), '', plan);
      expect(cache.bytes).toBeLessThanOrEqual(one * 20);
    }
    expect(cache.size).toBe(20);
    expect(cache.get(1, 'q01')).toBeUndefined();
    expect(cache.get(1, 'q39')).toBeDefined();
  });

  it('never keeps an entry larger than a sixteenth of the budget', () => {
    const cache = new PlanCache(one * 16);
    const big = 'x'.repeat(100);
    cache.store(1, big, entry(big), '', plan);
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
    cache.store(1, 'q00', entry('q00'), '', plan);
    expect(cache.size).toBe(1);
  });

  it('drops everything on a newer catalog version', () => {
    const cache = new PlanCache(one * 20);
    cache.store(1, 'q00', entry('q00'), '', plan);
    cache.store(2, 'q01', entry('q01'), '', plan);
    expect(cache.get(2, 'q00')).toBeUndefined();
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(one);
  });
});

describe('PlanCache.find (Note [Repeated operation lookups])', () => {
  const key = (role: string, op: string | null, query: string): string => PlanCache.key(role, op, query);

  it('finds an entry by its parts, the repeated one without the map, and nothing of another role, name, query or version', () => {
    const cache = new PlanCache(one * 20);
    const a = entry('qa');
    const b = entry('qb');
    cache.store(1, key('admin', 'A', 'query A { x }'), a, '', plan);
    cache.store(1, key('user', null, 'query A { x }'), b, '', plan);
    // Built at run time: equal text, another string object (as every request body gives).
    const text = ['query A', '{ x }'].join(' ');
    expect(cache.find(1, 'admin', 'A', text)).toBe(a);
    expect(cache.find(1, 'admin', 'A', text)).toBe(a);
    expect(cache.find(1, 'user', null, text)).toBe(b);
    expect(cache.find(1, 'user', 'A', text)).toBeUndefined();
    expect(cache.find(1, 'admin', null, text)).toBeUndefined();
    expect(cache.find(1, 'admin', 'A', 'query A { y }')).toBeUndefined();
    expect(cache.find(2, 'admin', 'A', text)).toBeUndefined();
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 3, misses: 4 });
  });

  it('forgets the repeated entry when it is evicted or the cache is cleared', () => {
    const cache = new PlanCache(one * 20);
    const a = entry('q00');
    cache.store(1, key('admin', null, 'q00'), a, '', plan);
    expect(cache.find(1, 'admin', null, 'q00')).toBe(a);
    // Newer entries push `a` out of a budget of twenty.
    for (let i = 10; i < 40; i++) cache.store(1, key('admin', null, `q${i}`), entry(`q${i}`), '', plan);
    expect(cache.get(1, key('admin', null, 'q00'))).toBeUndefined();
    expect(cache.find(1, 'admin', null, 'q00')).toBeUndefined();
    const c = entry('q03');
    cache.store(1, key('admin', null, 'q03'), c, '', plan);
    expect(cache.find(1, 'admin', null, 'q03')).toBe(c);
    expect(cache.find(1, 'admin', null, 'q03')).toBe(c);
    cache.clear();
    expect(cache.find(1, 'admin', null, 'q03')).toBeUndefined();
  });
});

describe('GraphqlService plan caching', () => {
  const admin = buildSession('admin', {});

  it('does not cache an operation whose statement failed', async () => {
    let fail = true;
    const conn: SourceConnection = {
      kind: 'postgres',
      queryJsonText: () => (fail ? Promise.reject(Object.assign(new Error('boom'), { code: '54000' })) : Promise.resolve('{"albums":[]}')),
      transactionJsonText: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    };
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const r = await svc.execute(admin, { query: '{ albums { id } }' });
    expect(JSON.parse('jsonText' in r ? r.jsonText : '')).toMatchObject({ errors: [{ extensions: { code: 'unexpected' } }] });
    expect(svc.planCacheStats).toEqual({ entries: 0, bytes: 0, hits: 0, misses: 1 });
    fail = false;
    await svc.execute(admin, { query: '{ albums { id } }' });
    expect(svc.planCacheStats.entries).toBe(1);
  });

  it('does not cache an operation refused while translating', async () => {
    const conn: SourceConnection = {
      kind: 'postgres',
      queryJsonText: () => Promise.resolve('{}'),
      transactionJsonText: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    };
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const r = await svc.execute(admin, { query: 'query($id: Int!) { albums(where: {id: {_eq: $id}}) { id } }', variables: {} });
    expect(JSON.parse('jsonText' in r ? r.jsonText : '')).toMatchObject({ errors: [{ extensions: { code: 'validation-failed' } }] });
    expect(svc.planCacheStats.entries).toBe(0);
  });
});
