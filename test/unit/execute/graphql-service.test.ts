/**
 * GraphqlService without a database: a recording connection shows which
 * statement and values each request runs, so plan reuse, binding, catalog
 * swaps and error shapes can be checked exactly.
 */
import { describe, expect, it } from 'vitest';
import type { BoundStatement, SourceConnection } from '../../../engine/backends/backend.ts';
import { buildSession } from '../../../engine/auth/session.ts';
import { CatalogRef } from '../../../engine/catalog/snapshot.ts';
import { GraphqlService } from '../../../engine/execute/graphql-service.ts';
import { silentLogger } from '../../../engine/logger.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

function recorder(answer = '{"x" : 1}'): { conn: SourceConnection; seen: BoundStatement[] } {
  const seen: BoundStatement[] = [];
  const conn: SourceConnection = {
    kind: 'postgres',
    queryJsonText: (s) => {
      seen.push(s);
      return Promise.resolve(answer);
    },
    transactionJsonText: () => Promise.resolve([]),
    close: () => Promise.resolve(),
  };
  return { conn, seen };
}

const admin = buildSession('admin', {});

describe('GraphqlService', () => {
  it('splices the database text into {"data":…} without parsing it', async () => {
    const { conn } = recorder('{"albums" : []}');
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const r = await svc.execute(admin, { query: '{ albums { id } }' });
    expect(r).toEqual({ status: 200, jsonText: '{"data":{"albums" : []}}' });
  });

  it('reuses one statement for leaf variables and binds their values', async () => {
    const { conn, seen } = recorder();
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const query = 'query($id: Int!, $n: Int) { albums(where: {id: {_eq: $id}}, limit: $n) { id } }';
    await svc.execute(admin, { query, variables: { id: 1, n: 5 } });
    await svc.execute(admin, { query, variables: { id: 2, n: null } });
    expect(seen[0]?.text).toBe(seen[1]?.text);
    expect(seen.map((s) => s.values)).toEqual([
      [1, 5],
      [2, null],
    ]);
  });

  it('compiles a new statement per value of a structural variable', async () => {
    const { conn, seen } = recorder();
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const query = 'query($w: albums_bool_exp, $skip: Boolean!) { albums(where: $w) { id title @skip(if: $skip) } }';
    await svc.execute(admin, { query, variables: { w: { id: { _eq: 1 } }, skip: false } });
    await svc.execute(admin, { query, variables: { w: { title: { _eq: 'x' } }, skip: false } });
    await svc.execute(admin, { query, variables: { w: { title: { _eq: 'x' } }, skip: true } });
    await svc.execute(admin, { query, variables: { w: { id: { _eq: 1 } }, skip: false } });
    expect(seen[0]?.text).toContain('"id" = $1');
    expect(seen[1]?.text).toContain('"title" = $1');
    expect(seen[2]?.text).not.toContain("'title'");
    expect(seen[3]?.text).toBe(seen[0]?.text);
  });

  it('binds session variables of permission filters, refusing a missing one', async () => {
    const { conn, seen } = recorder();
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    await svc.execute(buildSession('user', { 'X-Engine-User-Id': '7' }), { query: '{ albums { id } }' });
    expect(seen[0]?.values[0]).toBe('7');
    const r = await svc.execute(buildSession('user', {}), { query: '{ albums { id } }' });
    expect(JSON.parse((r as { jsonText: string }).jsonText).errors[0].extensions.code).toBe('not-found');
  });

  it('a catalog swap retires old plans and schemas', async () => {
    const { conn, seen } = recorder();
    const ref = new CatalogRef(musicCatalog(1, conn));
    const svc = new GraphqlService(ref, { stringifyNumericTypes: false, logger: silentLogger });
    await svc.execute(admin, { query: '{ genres { id } }' });
    const next = musicCatalog(2, conn);
    const source = next.sources.get('default');
    if (source === undefined) throw new Error('fixture');
    (source.tables as Map<string, unknown>).delete('public.genres');
    ref.swap(next);
    const r = await svc.execute(admin, { query: '{ genres { id } }' });
    expect(JSON.parse((r as { jsonText: string }).jsonText).errors[0].message).toBe("field 'genres' not found in type: 'query_root'");
    expect(seen).toHaveLength(1);
  });

  it('database errors: SQL in internal for admin only', async () => {
    const failing: SourceConnection = {
      kind: 'postgres',
      queryJsonText: () => Promise.reject(Object.assign(new Error('boom'), { code: '42P01' })),
      transactionJsonText: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    };
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, failing)), { stringifyNumericTypes: false, logger: silentLogger });
    const a = JSON.parse(((await svc.execute(admin, { query: '{ genres { id } }' })) as { jsonText: string }).jsonText);
    expect(a.errors[0]).toMatchObject({ message: 'database query error', extensions: { code: 'unexpected', path: '$' } });
    expect(a.errors[0].extensions.internal.statement).toContain('"public"."genres"');
    const u = JSON.parse(
      ((await svc.execute(buildSession('user', { 'x-engine-user-id': '1' }), { query: '{ tracks { id } }' })) as { jsonText: string }).jsonText,
    );
    expect(u.errors[0].extensions).toEqual({ path: '$', code: 'unexpected' });
  });
});

describe('several sources', () => {
  it('runs one statement per source and splices the objects in query order', async () => {
    const a = recorder('{"x" : [], "z" : 1}');
    const b = recorder('{"y" : [2]}');
    const catalog = musicCatalog(1, a.conn);
    const other = musicCatalog(1, b.conn).sources.get('default');
    if (other === undefined) throw new Error('fixture');
    const things = other.tables.get('public.genres');
    if (things === undefined) throw new Error('fixture');
    const renamed = {
      ...things,
      source: 'other',
      gqlName: 'things',
      rootFields: { ...things.rootFields, select: 'things', selectByPk: 'things_by_pk', selectAggregate: 'things_aggregate' },
    };
    (catalog.sources as Map<string, unknown>).set('other', { ...other, name: 'other', tables: new Map([['public.genres', renamed]]) });
    const svc = new GraphqlService(new CatalogRef(catalog), { stringifyNumericTypes: false, logger: silentLogger });
    const grouped = await svc.execute(admin, { query: '{ x: genres { id } z: genres_by_pk(id: 1) { id } y: things { id } }' });
    expect(grouped).toEqual({ status: 200, jsonText: '{"data":{"x" : [], "z" : 1,"y" : [2]}}' });
    const interleaved = await svc.execute(admin, { query: '{ x: genres { id } y: things { id } z: genres_by_pk(id: 1) { id } }' });
    expect(interleaved).toEqual({ status: 200, jsonText: '{"data":{"x":[],"y":[2],"z":1}}' });
    expect(a.seen).toHaveLength(2);
    expect(b.seen).toHaveLength(2);
    expect(b.seen[0]?.text).toContain("json_build_object('y'");
  });
});
