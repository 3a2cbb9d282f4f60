/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/** insert_<t> and insert_<t>_one through HTTP: defaults, nested inserts, upserts, custom names, views. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWriteFixture, type WriteFixture } from '../../support/write-schema.ts';

let f: WriteFixture;
beforeAll(async () => {
  f = await startWriteFixture();
});
afterAll(async () => {
  await f?.close();
});

describe('insert', () => {
  it('insert_<t>_one fills column defaults and returns the row', async () => {
    const r = await f.gql('mutation { insert_authors_one(object: {name: "Ann", email: "ann@x"}) { id name active created_at rating } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_authors_one).toMatchObject({ name: 'Ann', active: true, created_at: '2000-01-01T00:00:00+00:00', rating: null });
    expect(typeof r.data.insert_authors_one.id).toBe('number');
  });

  it('insert_<t> with rows giving different columns: each row keeps its own defaults, returning in input order', async () => {
    const r = await f.gql(`mutation { insert_authors(objects: [{name: "B1", active: false}, {name: "B2"}, {name: "B3", rating: 2.5, active: false}]) {
      affected_rows returning { name active rating } __typename } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_authors).toEqual({
      affected_rows: 3,
      returning: [
        { name: 'B1', active: false, rating: null },
        { name: 'B2', active: true, rating: null },
        { name: 'B3', active: false, rating: 2.5 },
      ],
      __typename: 'authors_mutation_response',
    });
  });

  it('an explicit null is inserted as NULL, not as the default', async () => {
    const r = await f.gql('mutation { insert_articles_one(object: {title: "N", words: null}) { words status } }');
    expect(r.data.insert_articles_one).toEqual({ words: null, status: 'draft' });
  });

  it('objects from a variable, and leaf variables inside literal objects', async () => {
    const q = 'mutation($rows: [authors_insert_input!]!) { insert_authors(objects: $rows) { affected_rows returning { name email } } }';
    const r = await f.gql(q, { rows: [{ name: 'V1' }, { name: 'V2', email: 'v2@x' }] });
    expect(r.data.insert_authors).toEqual({
      affected_rows: 2,
      returning: [
        { name: 'V1', email: null },
        { name: 'V2', email: 'v2@x' },
      ],
    });
    // Same shape: the cached plan is reused with other values; another shape gets its own plan.
    const again = await f.gql(q, { rows: [{ name: 'V3' }] });
    expect(again.data.insert_authors.returning).toEqual([{ name: 'V3', email: null }]);
    const other = await f.gql(q, { rows: [{ name: 'V4', email: 'v4@x', rating: 1 }] });
    expect(other.data.insert_authors.returning).toEqual([{ name: 'V4', email: 'v4@x' }]);
    const leaf = await f.gql('mutation($n: String!, $r: numeric) { insert_authors_one(object: {name: $n, rating: $r}) { name rating } }', {
      n: 'L1',
      r: '3.75',
    });
    expect(leaf.data.insert_authors_one).toEqual({ name: 'L1', rating: 3.75 });
    const one = await f.gql('mutation($o: authors_insert_input!) { insert_authors_one(object: $o) { name } }', { o: { name: 'O1' } });
    expect(one.data.insert_authors_one).toEqual({ name: 'O1' });
  });

  it('an empty objects list inserts nothing', async () => {
    const r = await f.gql('mutation { insert_authors(objects: []) { affected_rows returning { id } } }');
    expect(r.data.insert_authors).toEqual({ affected_rows: 0, returning: [] });
  });

  it('custom column names are input field names', async () => {
    const r = await f.gql('mutation { insert_renamed(objects: [{firstName: "A", lastName: "B"}, {firstName: "C"}]) { returning { firstName lastName } } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_renamed.returning).toEqual([
      { firstName: 'A', lastName: 'B' },
      { firstName: 'C', lastName: null },
    ]);
    expect(await f.rows('SELECT first_name, last_name FROM renamed ORDER BY id')).toEqual([
      { first_name: 'A', last_name: 'B' },
      { first_name: 'C', last_name: null },
    ]);
  });

  it('views: an updatable view takes inserts, a non-updatable one has no insert field', async () => {
    const r = await f.gql('mutation { insert_author_names_one(object: {name: "ViaView"}) { name } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_author_names_one).toEqual({ name: 'ViaView' });
    const no = await f.gql('mutation { insert_author_counts(objects: [{n: 1}]) { affected_rows } }');
    expect(no.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('nested insert', () => {
  it('array relationships to three levels; affected_rows counts every row; returning follows relationships', async () => {
    const r = await f.gql(`mutation { insert_authors(objects: [
        {name: "Deep1", articles: {data: [{title: "D1A", comments: {data: [{body: "c1"}, {body: "c2"}]}}, {title: "D1B"}]}},
        {name: "Deep2", articles: {data: [{title: "D2A", comments: {data: [{body: "c3"}]}}]}},
        {name: "Deep3"}]) {
      affected_rows
      returning { name articles(order_by: {title: asc}) { title comments(order_by: {body: asc}) { body article { author { name } } } } } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_authors.affected_rows).toBe(9);
    expect(r.data.insert_authors.returning).toEqual([
      {
        name: 'Deep1',
        articles: [
          {
            title: 'D1A',
            comments: [
              { body: 'c1', article: { author: { name: 'Deep1' } } },
              { body: 'c2', article: { author: { name: 'Deep1' } } },
            ],
          },
          { title: 'D1B', comments: [] },
        ],
      },
      { name: 'Deep2', articles: [{ title: 'D2A', comments: [{ body: 'c3', article: { author: { name: 'Deep2' } } }] }] },
      { name: 'Deep3', articles: [] },
    ]);
    const rows = await f.rows(`SELECT a.name, ar.title, c.body FROM comments c JOIN articles ar ON ar.id = c.article_id JOIN authors a ON a.id = ar.author_id
      WHERE a.name LIKE 'Deep%' ORDER BY c.body`);
    expect(rows).toEqual([
      { name: 'Deep1', title: 'D1A', body: 'c1' },
      { name: 'Deep1', title: 'D1A', body: 'c2' },
      { name: 'Deep2', title: 'D2A', body: 'c3' },
    ]);
  });

  it('object relationships to three levels: parents first, the child gets their keys', async () => {
    const r = await f.gql(`mutation { insert_comments(objects: [
        {body: "o1", article: {data: {title: "OA", author: {data: {name: "ObjAuthor"}}}}},
        {body: "o2", article: {data: {title: "OB"}}}]) {
      affected_rows returning { body article { title author { name } } } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_comments).toEqual({
      affected_rows: 5,
      returning: [
        { body: 'o1', article: { title: 'OA', author: { name: 'ObjAuthor' } } },
        { body: 'o2', article: { title: 'OB', author: null } },
      ],
    });
  });

  it('mixed: object parent and array children of the same row, from a variable', async () => {
    const q = `mutation($o: articles_insert_input!) { insert_articles_one(object: $o) { title author { name } comments(order_by: {body: asc}) { body } } }`;
    const r = await f.gql(q, { o: { title: 'Mixed', author: { data: { name: 'MixAuthor' } }, comments: { data: [{ body: 'm1' }, { body: 'm2' }] } } });
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_articles_one).toEqual({ title: 'Mixed', author: { name: 'MixAuthor' }, comments: [{ body: 'm1' }, { body: 'm2' }] });
  });

  it('a column set by a relationship may not be given too', async () => {
    const r = await f.gql('mutation { insert_articles_one(object: {title: "X", author_id: 1, author: {data: {name: "Y"}}}) { id } }');
    expect(r.errors[0].extensions.code).toBe('validation-failed');
    expect(r.errors[0].message).toContain('author_id');
  });

  it('nested on_conflict: an existing parent is reused through an upsert', async () => {
    await f.gql('mutation { insert_authors_one(object: {name: "Keyed", email: "keyed@x"}) { id } }');
    const r = await f.gql(`mutation { insert_articles_one(object: {title: "Up", author: {data: {name: "Keyed2", email: "keyed@x"},
        on_conflict: {constraint: authors_email_key, update_columns: [name]}}}) { author { name email } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_articles_one.author).toEqual({ name: 'Keyed2', email: 'keyed@x' });
    expect(await f.rows("SELECT count(*)::int AS n FROM authors WHERE email = 'keyed@x'")).toEqual([{ n: 1 }]);
  });

  it('a nested parent skipped by DO NOTHING fails the insert and rolls it back (v2 compat)', async () => {
    const r = await f.gql(`mutation { insert_articles_one(object: {title: "Skip", author: {data: {name: "K", email: "keyed@x"},
        on_conflict: {constraint: authors_email_key, update_columns: []}}}) { id } }`);
    expect(r.errors[0].message).toBe('cannot proceed to insert object relation since insert to table "authors" affects zero rows');
    expect(await f.rows("SELECT count(*)::int AS n FROM articles WHERE title = 'Skip'")).toEqual([{ n: 0 }]);
  });
});

describe('upsert', () => {
  it('on the primary key: update_columns overwrite, others keep their value', async () => {
    await f.gql('mutation { insert_labels(objects: [{slug: "a", title: "A", uses: 1}, {slug: "b", title: "B"}]) { affected_rows } }');
    const r = await f.gql(`mutation { insert_labels(objects: [{slug: "a", title: "A2", uses: 5}, {slug: "c", title: "C"}],
        on_conflict: {constraint: labels_pkey, update_columns: [title]}) { affected_rows returning { slug title uses } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_labels).toEqual({
      affected_rows: 2,
      returning: [
        { slug: 'a', title: 'A2', uses: 1 },
        { slug: 'c', title: 'C', uses: 0 },
      ],
    });
  });

  it('on a unique constraint, with a where on the existing row', async () => {
    await f.gql('mutation { insert_labels(objects: [{slug: "u1", title: "U1", code: 7}, {slug: "u2", title: "U2", code: 8, uses: 9}]) { affected_rows } }');
    const q = `mutation($code: Int!, $title: String!) { insert_labels_one(object: {slug: "ignored", title: $title, code: $code},
        on_conflict: {constraint: labels_code_key, update_columns: [title], where: {uses: {_lt: 5}}}) { slug title } }`;
    const hit = await f.gql(q, { code: 7, title: 'U1new' });
    expect(hit.data.insert_labels_one).toEqual({ slug: 'u1', title: 'U1new' });
    // The existing row fails `where`: nothing is written and _one answers null.
    const miss = await f.gql(q, { code: 8, title: 'U2new' });
    expect(miss.errors).toBeUndefined();
    expect(miss.data.insert_labels_one).toBeNull();
    expect(await f.rows('SELECT title FROM labels WHERE code = 8')).toEqual([{ title: 'U2' }]);
  });

  it('empty update_columns means do nothing: _one returns null, the list skips the row', async () => {
    const one = await f.gql(
      'mutation { insert_labels_one(object: {slug: "a", title: "Z"}, on_conflict: {constraint: labels_pkey, update_columns: []}) { slug } }',
    );
    expect(one.errors).toBeUndefined();
    expect(one.data.insert_labels_one).toBeNull();
    const many = await f.gql(`mutation { insert_labels(objects: [{slug: "a", title: "Z"}, {slug: "d", title: "D"}],
        on_conflict: {constraint: labels_pkey, update_columns: []}) { affected_rows returning { slug title } } }`);
    expect(many.data.insert_labels).toEqual({ affected_rows: 1, returning: [{ slug: 'd', title: 'D' }] });
    expect(await f.rows("SELECT title FROM labels WHERE slug = 'a'")).toEqual([{ title: 'A2' }]);
  });

  it("the constraint enum names the table's primary key and unique constraints", async () => {
    const r = await f.gql('{ __type(name: "labels_constraint") { enumValues { name } } }');
    expect(r.data.__type.enumValues.map((v: any) => v.name).sort()).toEqual(['labels_code_key', 'labels_pkey']);
  });
});
