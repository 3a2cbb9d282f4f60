/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Several mutation fields in one request: one transaction, in order, later
 * fields seeing earlier writes, all rolled back on any error. And what it
 * costs: statements and round trips counted by a protocol-reading proxy in
 * front of PostgreSQL (metadata storage bypasses it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgProxy, type PgProxy } from '../../support/pg-proxy.ts';
import { startWriteFixture, type WriteFixture } from '../../support/write-schema.ts';

let f: WriteFixture;
let proxy: PgProxy;
beforeAll(async () => {
  f = await startWriteFixture(async (db) => {
    proxy = await startPgProxy(db.url);
    return { databaseUrl: proxy.url, metadataDatabaseUrl: db.url };
  });
});
afterAll(async () => {
  await f?.close();
  await proxy?.close();
});

/** Runs `query` and returns its answer with the statements and round trips it cost. */
async function measured(
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ body: any; statements: number; executions: number; roundTrips: number; texts: string[] }> {
  proxy.reset();
  const body = await f.gql(query, variables);
  return {
    body,
    statements: proxy.counts.statements,
    executions: proxy.counts.executions,
    roundTrips: proxy.counts.roundTrips,
    texts: [...proxy.counts.texts],
  };
}

describe('one transaction per request', () => {
  it("fields run in order and see earlier fields' writes", async () => {
    const r = await f.gql(`mutation {
      a: insert_authors_one(object: {id: 100, name: "First"}) { id }
      b: update_authors(where: {id: {_eq: 100}}, _set: {name: "Second"}) { affected_rows returning { name } }
      c: insert_articles_one(object: {title: "Child", author_id: 100}) { author { name } }
      d: delete_articles(where: {author_id: {_eq: 100}}) { affected_rows }
      __typename }`);
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({
      a: { id: 100 },
      b: { affected_rows: 1, returning: [{ name: 'Second' }] },
      c: { author: { name: 'Second' } },
      d: { affected_rows: 1 },
      __typename: 'mutation_root',
    });
  });

  it('an error in a later field rolls back the earlier ones', async () => {
    const r = await f.gql(`mutation {
      a: insert_authors_one(object: {id: 200, name: "Kept?"}) { id }
      b: update_authors(where: {id: {_eq: 100}}, _set: {name: "Changed?"}) { affected_rows }
      c: insert_authors_one(object: {id: 200, name: "Duplicate"}) { id } }`);
    expect(r.data).toBeUndefined();
    expect(r.errors[0].extensions.code).toBe('constraint-violation');
    expect(await f.rows('SELECT id, name FROM authors WHERE id IN (100, 200) ORDER BY id')).toEqual([{ id: 100, name: 'Second' }]);
  });

  it('an error in an earlier field: later fields do not run', async () => {
    const r = await f.gql(`mutation {
      a: insert_authors_one(object: {id: 100, name: "Dup"}) { id }
      b: insert_labels_one(object: {slug: "after", title: "After"}) { slug } }`);
    expect(r.errors[0].extensions.code).toBe('constraint-violation');
    expect(await f.rows("SELECT count(*)::int AS n FROM labels WHERE slug = 'after'")).toEqual([{ n: 0 }]);
  });
});

describe('statements and round trips', () => {
  it('a plain insert_<t>_one: one statement, one round trip', async () => {
    await f.gql('mutation { insert_labels_one(object: {slug: "warm", title: "W"}) { slug } }');
    const m = await measured('mutation { insert_labels_one(object: {slug: "one", title: "One"}) { slug title } }');
    expect(m.body.data.insert_labels_one).toEqual({ slug: 'one', title: 'One' });
    expect({ statements: m.statements, roundTrips: m.roundTrips }).toEqual({ statements: 1, roundTrips: 1 });
    expect(m.texts[0]).toMatch(/^WITH "_r0" AS/);
  });

  it('a two-level nested insert: one statement, one round trip', async () => {
    const m = await measured(`mutation { insert_authors(objects: [
        {name: "N1", articles: {data: [{title: "N1a"}, {title: "N1b"}]}},
        {name: "N2", articles: {data: [{title: "N2a"}]}}]) { affected_rows returning { id name } } }`);
    expect(m.body.data.insert_authors.affected_rows).toBe(5);
    expect({ statements: m.statements, roundTrips: m.roundTrips }).toEqual({ statements: 1, roundTrips: 1 });
  });

  it('a nested insert whose returning follows relationships: BEGIN, write, read back, COMMIT in one round trip', async () => {
    const m = await measured(`mutation { insert_authors(objects: [{name: "R1", articles: {data: [{title: "R1a"}]}}]) {
      returning { name articles { title } } } }`);
    expect(m.body.data.insert_authors.returning).toEqual([{ name: 'R1', articles: [{ title: 'R1a' }] }]);
    expect(m.texts.map((t) => t.split(' ')[0])).toEqual(['BEGIN', 'WITH', 'SELECT', 'COMMIT']);
    expect(m.roundTrips).toBe(1);
  });

  it('three mutation fields: BEGIN, three statements, COMMIT in one round trip', async () => {
    const m = await measured(`mutation {
      a: insert_labels_one(object: {slug: "t1", title: "T1"}) { slug }
      b: update_labels(where: {slug: {_eq: "t1"}}, _inc: {uses: 1}) { affected_rows }
      c: delete_labels_by_pk(slug: "t1") { uses } }`);
    expect(m.body.data).toEqual({ a: { slug: 't1' }, b: { affected_rows: 1 }, c: { uses: 1 } });
    // Run, not parsed: a transaction's statements are prepared once per connection (Note [Generic plans for mutations]).
    expect({ executions: m.executions, roundTrips: m.roundTrips }).toEqual({ executions: 5, roundTrips: 1 });
  });

  it('a failing transaction is still one round trip and leaves the connection usable', async () => {
    const m = await measured(`mutation {
      a: insert_labels_one(object: {slug: "f1", title: "F1"}) { slug }
      b: insert_labels_one(object: {slug: "f1", title: "F1 again"}) { slug } }`);
    expect(m.body.errors[0].extensions.code).toBe('constraint-violation');
    expect(m.roundTrips).toBe(1);
    const after = await f.gql('{ labels(where: {slug: {_eq: "f1"}}) { slug } }');
    expect(after.data.labels).toEqual([]);
  });
});
