/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/** update_<t>, update_<t>_by_pk, update_<t>_many, delete_<t>, delete_<t>_by_pk through HTTP, every operator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWriteFixture, type WriteFixture } from '../../support/write-schema.ts';

let f: WriteFixture;
beforeAll(async () => {
  f = await startWriteFixture();
  await f.db.sql(`
    INSERT INTO authors (id, name, rating, followers, score, meta, tags) VALUES
      (1, 'Ann', 1.5, 10, 1.25, '{"a": 1, "b": {"c": 2}, "arr": [1, 2, 3]}', '{x}'),
      (2, 'Bob', 2, 20, 2.5, '["p", "q", "r"]', NULL),
      (3, 'Cid', NULL, NULL, NULL, NULL, NULL);
    SELECT setval('authors_id_seq', 3);
    INSERT INTO articles (id, title, author_id, words) VALUES (1, 'T1', 1, 10), (2, 'T2', 1, 20), (3, 'T3', 2, 30);
    SELECT setval('articles_id_seq', 3);
  `);
});
afterAll(async () => {
  await f?.close();
});

describe('update', () => {
  it('_set and _inc with where; returning the new values and relationships', async () => {
    const r = await f.gql(`mutation { update_authors(where: {id: {_in: [1, 2]}}, _set: {name: "Renamed"}, _inc: {rating: 1, followers: 5, score: 0.5}) {
      affected_rows returning { id name rating followers score articles(order_by: {id: asc}) { title } } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.update_authors.affected_rows).toBe(2);
    const byId = Object.fromEntries(r.data.update_authors.returning.map((x: any) => [x.id, x]));
    expect(byId[1]).toEqual({ id: 1, name: 'Renamed', rating: 2.5, followers: 15, score: 1.75, articles: [{ title: 'T1' }, { title: 'T2' }] });
    expect(byId[2]).toEqual({ id: 2, name: 'Renamed', rating: 3, followers: 25, score: 3, articles: [{ title: 'T3' }] });
  });

  it('no row matches: affected_rows 0', async () => {
    const r = await f.gql('mutation { update_authors(where: {id: {_eq: 999}}, _set: {name: "X"}) { affected_rows returning { id } } }');
    expect(r.data.update_authors).toEqual({ affected_rows: 0, returning: [] });
  });

  it('_append and _prepend on jsonb objects and arrays', async () => {
    const a = await f.gql('mutation { update_authors_by_pk(pk_columns: {id: 1}, _append: {meta: {d: 4}}) { meta } }');
    expect(a.data.update_authors_by_pk.meta).toEqual({ a: 1, b: { c: 2 }, arr: [1, 2, 3], d: 4 });
    const p = await f.gql('mutation { update_authors_by_pk(pk_columns: {id: 2}, _prepend: {meta: ["o"]}) { meta } }');
    expect(p.data.update_authors_by_pk.meta).toEqual(['o', 'p', 'q', 'r']);
  });

  it('_delete_key, _delete_elem, _delete_at_path', async () => {
    const k = await f.gql('mutation { update_authors_by_pk(pk_columns: {id: 1}, _delete_key: {meta: "d"}) { meta } }');
    expect(k.data.update_authors_by_pk.meta).toEqual({ a: 1, b: { c: 2 }, arr: [1, 2, 3] });
    const e = await f.gql('mutation { update_authors_by_pk(pk_columns: {id: 2}, _delete_elem: {meta: 0}) { meta } }');
    expect(e.data.update_authors_by_pk.meta).toEqual(['p', 'q', 'r']);
    const p = await f.gql('mutation { update_authors_by_pk(pk_columns: {id: 1}, _delete_at_path: {meta: ["b", "c"]}) { meta } }');
    expect(p.data.update_authors_by_pk.meta).toEqual({ a: 1, b: {}, arr: [1, 2, 3] });
  });

  it('operator arguments from variables (shape-keyed plans) and pk_columns from a variable', async () => {
    const q =
      'mutation($pk: authors_pk_columns_input!, $set: authors_set_input, $inc: authors_inc_input) { update_authors_by_pk(pk_columns: $pk, _set: $set, _inc: $inc) { id name small } }';
    const a = await f.gql(q, { pk: { id: 3 }, set: { name: 'Cee', small: 7 } });
    expect(a.data.update_authors_by_pk).toEqual({ id: 3, name: 'Cee', small: 7 });
    const b = await f.gql(q, { pk: { id: 3 }, set: { name: 'Cid' }, inc: { small: 3 } });
    expect(b.data.update_authors_by_pk).toEqual({ id: 3, name: 'Cid', small: 10 });
  });

  it('update_<t>_by_pk answers null when the row does not exist', async () => {
    const r = await f.gql('mutation { update_authors_by_pk(pk_columns: {id: 404}, _set: {name: "X"}) { id } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.update_authors_by_pk).toBeNull();
  });

  it('update_<t>_many applies entries in order, each seeing the previous, one response each', async () => {
    const r = await f.gql(`mutation { update_articles_many(updates: [
        {where: {id: {_eq: 1}}, _set: {words: 100}},
        {where: {words: {_gte: 100}}, _inc: {words: 1}},
        {where: {id: {_eq: 999}}, _set: {words: 0}}]) { affected_rows returning { id words } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.update_articles_many).toEqual([
      { affected_rows: 1, returning: [{ id: 1, words: 100 }] },
      { affected_rows: 1, returning: [{ id: 1, words: 101 }] },
      { affected_rows: 0, returning: [] },
    ]);
    const v = await f.gql('mutation($u: [articles_updates!]!) { update_articles_many(updates: $u) { affected_rows } }', {
      u: [
        { where: { id: { _eq: 2 } }, _set: { words: 5 } },
        { where: { id: { _eq: 3 } }, _inc: { words: 5 } },
      ],
    });
    expect(v.data.update_articles_many).toEqual([{ affected_rows: 1 }, { affected_rows: 1 }]);
    expect(await f.rows('SELECT id, words FROM articles ORDER BY id')).toEqual([
      { id: 1, words: 101 },
      { id: 2, words: 5 },
      { id: 3, words: 35 },
    ]);
  });

  it('at least one operator is required; one column takes one operator', async () => {
    const none = await f.gql('mutation { update_authors(where: {}) { affected_rows } }');
    expect(none.errors[0].extensions.code).toBe('validation-failed');
    const twice = await f.gql('mutation { update_authors(where: {}, _set: {rating: 1}, _inc: {rating: 1}) { affected_rows } }');
    expect(twice.errors[0].message).toBe('column found in multiple operators: "rating"');
  });

  it('custom column names in _set', async () => {
    await f.db.sql("INSERT INTO renamed (id, first_name) VALUES (1, 'a')");
    const r = await f.gql('mutation { update_renamed(where: {firstName: {_eq: "a"}}, _set: {lastName: "z"}) { returning { firstName lastName } } }');
    expect(r.data.update_renamed.returning).toEqual([{ firstName: 'a', lastName: 'z' }]);
  });
});

describe('delete', () => {
  it('delete_<t> with where returns the deleted rows and their relationships', async () => {
    await f.db.sql("INSERT INTO articles (id, title, author_id) VALUES (10, 'Gone1', 3), (11, 'Gone2', 3)");
    const r = await f.gql('mutation { delete_articles(where: {title: {_like: "Gone%"}}) { affected_rows returning { id author { name } } } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.delete_articles.affected_rows).toBe(2);
    expect(r.data.delete_articles.returning.sort((a: any, b: any) => a.id - b.id)).toEqual([
      { id: 10, author: { name: 'Cid' } },
      { id: 11, author: { name: 'Cid' } },
    ]);
    expect(await f.rows("SELECT count(*)::int AS n FROM articles WHERE title LIKE 'Gone%'")).toEqual([{ n: 0 }]);
  });

  it('delete_<t>_by_pk returns the row, or null when absent', async () => {
    await f.db.sql("INSERT INTO labels (slug, title) VALUES ('del', 'Del')");
    const r = await f.gql('mutation { delete_labels_by_pk(slug: "del") { slug title } }');
    expect(r.data.delete_labels_by_pk).toEqual({ slug: 'del', title: 'Del' });
    const again = await f.gql('mutation($s: String!) { delete_labels_by_pk(slug: $s) { slug } }', { s: 'del' });
    expect(again.data.delete_labels_by_pk).toBeNull();
  });

  it('where is required; an empty where deletes every row', async () => {
    const none = await f.gql('mutation { delete_labels { affected_rows } }');
    expect(none.errors[0].extensions.code).toBe('validation-failed');
    await f.db.sql("INSERT INTO labels (slug, title) VALUES ('l1', 'L1'), ('l2', 'L2')");
    const all = await f.gql('mutation { delete_labels(where: {}) { affected_rows } }');
    expect(all.data.delete_labels.affected_rows).toBe(2);
  });
});
