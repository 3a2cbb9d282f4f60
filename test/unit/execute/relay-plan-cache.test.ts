/**
 * /v1beta1/relay runs through the plan cache like /v1/graphql (its own cache,
 * Note [Relay schema]): every page of a connection, whatever its cursor and
 * size, is one cached plan and one statement text; the cursor is bound.
 */
import { describe, expect, it } from 'vitest';
import type { SourceConnection } from '../../../engine/backends/backend.ts';
import { buildSession } from '../../../engine/auth/session.ts';
import { CatalogRef } from '../../../engine/catalog/snapshot.ts';
import { GraphqlService } from '../../../engine/execute/graphql-service.ts';
import { silentLogger } from '../../../engine/logger.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

describe('Relay plan caching', () => {
  it('plans a connection page once for every cursor, binding the cursor', async () => {
    const seen: Array<{ text: string; values: readonly unknown[] }> = [];
    const conn: SourceConnection = {
      kind: 'postgres',
      queryJsonText: (stmt) => {
        seen.push({ text: stmt.text, values: stmt.values });
        return Promise.resolve('{"albums_connection":{"edges":[]}}');
      },
      transactionJsonText: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    };
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const admin = buildSession('admin', {});
    const query = 'query ($after: String, $n: Int) { albums_connection(first: $n, after: $after) { edges { cursor node { id } } } }';
    const cursor = (id: number): string => Buffer.from(`{"id" : ${id}}`).toString('base64');
    for (const [after, n] of [
      [cursor(1), 2],
      [cursor(7), 5],
    ] as const) {
      const r = await svc.execute(admin, { query, variables: { after, n } }, { relay: true });
      expect('jsonText' in r ? r.jsonText : '').toBe('{"data":{"albums_connection":{"edges":[]}}}');
    }
    expect(svc.relayPlanCacheStats).toMatchObject({ entries: 1, hits: 1, misses: 1 });
    expect(svc.planCacheStats.entries).toBe(0);
    expect(seen).toHaveLength(2);
    expect(seen[1]?.text).toBe(seen[0]?.text);
    expect(seen[0]?.values).toContain('{"id" : 1}');
    expect(seen[1]?.values).toContain('{"id" : 7}');
  });
});
