/**
 * The named request steps (Note [Request steps]) and plans of typed steps
 * (Note [Plan steps]) on the music fixture, with a recording connection in
 * place of the database: which steps a plan has, what each request step
 * does, and that the HTTP service and planOne agree.
 */
import { describe, expect, it } from 'vitest';
import type { BoundStatement, SourceConnection } from '../../../engine/backends/backend.ts';
import { buildSession } from '../../../engine/auth/session.ts';
import { CatalogRef } from '../../../engine/catalog/snapshot.ts';
import { GraphqlService } from '../../../engine/execute/graphql-service.ts';
import { needsPostProcessing, type Plan } from '../../../engine/execute/plan.ts';
import { bind, executeOne, parse, planOne, respond, run, validate } from '../../../engine/execute/request-steps.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { silentLogger } from '../../../engine/logger.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

function recorder(answer: string): { conn: SourceConnection; seen: BoundStatement[]; transactions: BoundStatement[][] } {
  const seen: BoundStatement[] = [];
  const transactions: BoundStatement[][] = [];
  const conn: SourceConnection = {
    kind: 'postgres',
    queryJsonText: (s) => {
      seen.push(s);
      return Promise.resolve(answer);
    },
    transactionJsonText: (stmts) => {
      transactions.push([...stmts]);
      return Promise.resolve(stmts.map(() => answer));
    },
    close: () => Promise.resolve(),
  };
  return { conn, seen, transactions };
}

const admin = buildSession('admin', {});

describe('plans of typed steps', () => {
  it('plans a query as one read step per source, its SQL in order', () => {
    const { plan, sql } = planOne({ catalog: musicCatalog(), session: admin, query: '{ albums { id } __typename }' });
    expect(plan.steps.map((s) => s.kind)).toEqual(['read']);
    expect(sql).toHaveLength(1);
    expect(sql[0]?.text).toContain('"public"."albums"');
    expect(needsPostProcessing(plan)).toBe(false);
  });

  it('plans introspection and __typename alone as one static step, no SQL', () => {
    const { plan, sql } = planOne({ catalog: musicCatalog(), session: admin, query: '{ __typename }' });
    expect(plan.steps).toEqual([{ kind: 'static', json: '{"__typename":"query_root"}' }]);
    expect(sql).toEqual([]);
  });

  it('plans a mutation as one write step holding its statements', () => {
    const { plan, sql } = planOne({ catalog: musicCatalog(), session: admin, query: 'mutation { delete_genres_by_pk(id: 3) { name } a: __typename }' });
    expect(plan.steps.map((s) => s.kind)).toEqual(['write']);
    expect(sql.length).toBeGreaterThan(0);
    expect(sql[0]?.text).toContain('DELETE FROM');
  });

  it('a step with remote joins needs post-processing (test/integration/remote runs them)', () => {
    const { plan } = planOne({ catalog: musicCatalog(), session: admin, query: '{ __typename }' });
    const step = plan.steps[0];
    if (step === undefined) throw new Error('no step');
    expect(needsPostProcessing(plan)).toBe(false);
    const joined: Plan = { ...plan, steps: [{ ...step, joins: [{ kind: 'remote', remote: {} as never, joins: [] }] }] };
    expect(needsPostProcessing(joined)).toBe(true);
  });
});

describe('request steps', () => {
  const schema = new SchemaCache().get(musicCatalog(), 'admin', true).schema;

  it('parse answers parse-failed', () => {
    expect(() => parse('{ albums {')).toThrow(expect.objectContaining({ code: 'parse-failed' }) as Error);
  });

  it('validate measures the operation and refuses it over the bounds before the rules run', () => {
    // An unknown field over the bound: the bound answers, not the rules (Note [Operation cost]).
    const doc = parse('{ a: albums { id } b: albums { id } c: nope }');
    expect(() => validate(schema, doc, null, { fieldLimit: 2, limits: null })).toThrow('field limit of 2 exceeded');
    expect(() => validate(schema, doc, null)).toThrow("field 'nope' not found in type: 'query_root'");
    const ok = validate(schema, parse('{ albums { id } }'), null, { fieldLimit: 5, limits: null });
    expect(ok.cost.fields).toBe(2);
  });

  it('bind, run and respond splice the database text untouched', async () => {
    const { conn, seen } = recorder('{"albums" : [ ]}');
    const catalog = musicCatalog(1, conn);
    const { plan } = planOne({ catalog, session: admin, query: 'query($id: Int!) { albums(where: {id: {_eq: $id}}) { id } }', variables: { id: 7 } });
    const text = respond(plan, await run(bind(plan, { id: 7 }, admin)));
    expect(text).toBe('{"data":{"albums" : [ ]}}');
    expect(seen.map((s) => s.values)).toEqual([[7]]);
  });

  it('executeOne gives the same SQL and response as the HTTP service', async () => {
    const query = '{ albums(limit: 2) { id } }';
    const a = recorder('{"albums" : [{"id":1}]}');
    const one = await executeOne({ catalog: musicCatalog(1, a.conn), session: admin, query });
    const b = recorder('{"albums" : [{"id":1}]}');
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, b.conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const viaService = await svc.execute(admin, { query });
    expect(viaService).toEqual({ status: 200, jsonText: one.response });
    expect(b.seen.map((s) => s.text)).toEqual(one.sql.map((s) => s.text));
  });

  it('executeOne answers errors in the v2 shape', async () => {
    const r = await executeOne({ catalog: musicCatalog(), session: admin, query: '{ nope }' });
    expect(JSON.parse(r.response)).toEqual({
      errors: [{ message: "field 'nope' not found in type: 'query_root'", extensions: { path: '$.selectionSet.nope', code: 'validation-failed' } }],
    });
  });

  it('binds every transaction of a write step before any runs', async () => {
    const { conn, transactions, seen } = recorder('{"id":1}');
    const catalog = musicCatalog(1, conn);
    const user = buildSession('admin', {});
    const { plan } = planOne({
      catalog,
      session: user,
      query: 'mutation($id: Int!) { delete_genres_by_pk(id: $id) { name } }',
      variables: { id: 1 },
      uncoerced: true,
    });
    // A missing variable fails in bind: nothing reaches the connection.
    expect(() => bind(plan, {}, user)).toThrow(expect.objectContaining({ code: 'validation-failed' }) as Error);
    expect(seen.length + transactions.length).toBe(0);
  });

  it('refuses a mutation sent with GET with 405, even with variables missing', async () => {
    const { conn, seen } = recorder('{}');
    const svc = new GraphqlService(new CatalogRef(musicCatalog(1, conn)), { stringifyNumericTypes: false, logger: silentLogger });
    const r = await svc.execute(admin, { query: 'mutation($id: Int!) { delete_genres_by_pk(id: $id) { name } }' }, { readOnly: true });
    expect(r.status).toBe(405);
    expect(seen).toEqual([]);
  });
});
