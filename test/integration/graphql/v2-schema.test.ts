/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2 schema behaviours (issue 15) over HTTP on a real PostgreSQL: order_by on
 * aggregates of table-returning computed fields, `<t>_aggregate_bool_exp`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_SCHEMA, startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

const SCHEMA = `${READ_SCHEMA}
CREATE FUNCTION author_articles(a authors) RETURNS SETOF articles LANGUAGE sql STABLE AS $$ SELECT * FROM articles WHERE author_id = a.id $$;
CREATE TABLE author_detail (id serial PRIMARY KEY, author_id int UNIQUE NOT NULL REFERENCES authors(id), phone text);
CREATE FUNCTION authors_named(text) RETURNS SETOF authors LANGUAGE sql STABLE AS $$ SELECT * FROM authors WHERE name LIKE $1 || '%' $$;
CREATE FUNCTION articles_words(lo int, int DEFAULT 1000, title_like text DEFAULT '%') RETURNS SETOF articles LANGUAGE sql STABLE AS $$ SELECT * FROM articles WHERE words BETWEEN $1 AND $2 AND title LIKE $3 $$;
CREATE FUNCTION articles_range(int DEFAULT 0, int DEFAULT 1000) RETURNS SETOF articles LANGUAGE sql STABLE AS $$ SELECT * FROM articles WHERE words BETWEEN $1 AND $2 $$;
CREATE FUNCTION author_label(a authors) RETURNS text LANGUAGE sql STABLE AS $$ SELECT a.name || '!' $$;
ALTER TABLE articles ADD COLUMN featured boolean NOT NULL DEFAULT false;
UPDATE articles SET featured = true WHERE id = 1;
CREATE FUNCTION author_titles(a authors, min_words int) RETURNS SETOF articles LANGUAGE sql STABLE AS $$ SELECT * FROM articles WHERE author_id = a.id AND words >= min_words $$;
`;

let f: ReadFixture;
beforeAll(async () => {
  f = await startReadFixture({}, SCHEMA);
  for (const [name, fn] of [
    ['get_articles', 'author_articles'],
    ['titles', 'author_titles'],
    ['label', 'author_label'],
  ]) {
    const r = await f.md({ type: 'pg_add_computed_field', args: { table: 'authors', name, definition: { function: fn } } });
    expect(r.status).toBe(200);
  }
});
afterAll(async () => {
  await f?.close();
});

describe('order_by on aggregates of table-returning computed fields', () => {
  it('sorts by count and by an aggregate of a column of the returned rows', async () => {
    const byCount = await f.gql('{ authors(order_by: [{get_articles_aggregate: {count: desc}}, {id: asc}]) { id } }');
    expect(byCount).toEqual({ data: { authors: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    const byAsc = await f.gql('{ authors(order_by: [{get_articles_aggregate: {count: asc}}, {id: desc}]) { id } }');
    expect(byAsc.data.authors.map((a: any) => a.id)).toEqual([3, 2, 1]);
    const bySum = await f.gql('{ authors(order_by: {get_articles_aggregate: {sum: {words: desc_nulls_last}}}) { id } }');
    expect(bySum.data.authors.map((a: any) => a.id)).toEqual([1, 2, 3]);
    const byMax = await f.gql('{ authors(order_by: {get_articles_aggregate: {max: {words: asc_nulls_first}}}) { id } }');
    expect(byMax.data.authors.map((a: any) => a.id)).toEqual([3, 2, 1]);
  });

  it('is offered for set-returning computed fields without required arguments only', async () => {
    const t = await f.gql('{ __type(name: "authors_order_by") { inputFields { name type { name } } } }');
    const fields = t.data.__type.inputFields;
    expect(fields).toContainEqual({ name: 'get_articles_aggregate', type: { name: 'articles_aggregate_order_by' } });
    expect(fields.map((x: any) => x.name)).not.toContain('titles_aggregate');
  });

  it('counts only the rows the role may read, and needs aggregation permission', async () => {
    const perm = (role: string, table: string, allow: boolean, filter: unknown = {}): unknown => ({
      type: 'pg_create_select_permission',
      args: { table, role, permission: { columns: '*', filter, allow_aggregations: allow, computed_fields: table === 'authors' ? ['get_articles'] : [] } },
    });
    for (const b of [
      perm('drafts', 'authors', false),
      perm('drafts', 'articles', true, { status: { _eq: 'draft' } }),
      perm('noagg', 'authors', true),
      perm('noagg', 'articles', false),
    ]) {
      expect((await f.md(b)).status).toBe(200);
    }
    // Role drafts counts only draft articles: Ann has 1, Bob 0, Cid 0.
    const r = await f.gql('{ authors(order_by: [{get_articles_aggregate: {count: desc}}, {id: desc}]) { id } }', undefined, { 'x-engine-role': 'drafts' });
    expect(r.data.authors.map((a: any) => a.id)).toEqual([1, 3, 2]);
    const no = await f.gql('{ authors(order_by: {get_articles_aggregate: {count: desc}}) { id } }', undefined, { 'x-engine-role': 'noagg' });
    expect(no.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('<t>_aggregate_bool_exp', () => {
  it('filters parents by the count of their related rows', async () => {
    const r = await f.gql('{ authors(where: {articles_aggregate: {count: {predicate: {_gt: 1}}}}) { name } }');
    expect(r).toEqual({ data: { authors: [{ name: 'Ann' }] } });
    const none = await f.gql('{ authors(where: {articles_aggregate: {count: {predicate: {_eq: 0}}}}, order_by: {id: asc}) { name } }');
    expect(none).toEqual({ data: { authors: [{ name: 'Cid' }] } });
  });

  it('takes filter, arguments and distinct, and combines with other conditions', async () => {
    const filtered = await f.gql(
      '{ authors(where: {articles_aggregate: {count: {filter: {status: {_eq: published}}, predicate: {_eq: 1}}}}, order_by: {id: asc}) { name } }',
    );
    expect(filtered).toEqual({ data: { authors: [{ name: 'Ann' }, { name: 'Bob' }] } });
    const distinct = await f.gql('{ authors(where: {articles_aggregate: {count: {arguments: [status], distinct: true, predicate: {_gte: 2}}}}) { name } }');
    expect(distinct).toEqual({ data: { authors: [{ name: 'Ann' }] } });
    const combined = await f.gql(
      'query($n: Int!) { authors(where: {_and: [{articles_aggregate: {count: {predicate: {_gte: $n}}}}, {active: {_eq: true}}]}) { name } }',
      { n: 1 },
    );
    expect(combined).toEqual({ data: { authors: [{ name: 'Ann' }] } });
    // Through an object relationship: articles whose author has more than one article.
    const nested = await f.gql('{ articles(where: {author: {articles_aggregate: {count: {predicate: {_gt: 1}}}}}, order_by: {id: asc}) { id } }');
    expect(nested).toEqual({ data: { articles: [{ id: 1 }, { id: 2 }] } });
  });

  it('has v2 types: predicate is a required Int comparison', async () => {
    const t = await f.gql('{ __type(name: "articles_aggregate_bool_exp_count") { inputFields { name type { kind name ofType { name } } } } }');
    expect(t.data.__type.inputFields).toEqual([
      { name: 'arguments', type: { kind: 'LIST', name: null, ofType: { name: null } } },
      { name: 'distinct', type: { kind: 'SCALAR', name: 'Boolean', ofType: null } },
      { name: 'filter', type: { kind: 'INPUT_OBJECT', name: 'articles_bool_exp', ofType: null } },
      { name: 'predicate', type: { kind: 'NON_NULL', name: null, ofType: { name: 'Int_comparison_exp' } } },
    ]);
    const missing = await f.gql('{ authors(where: {articles_aggregate: {count: {}}}) { name } }');
    expect(missing.errors[0].extensions.code).toBe('validation-failed');
  });

  it('filters by bool_and / bool_or of a boolean column of the related rows', async () => {
    const any = await f.gql('{ authors(where: {articles_aggregate: {bool_or: {arguments: featured, predicate: {_eq: true}}}}) { name } }');
    expect(any).toEqual({ data: { authors: [{ name: 'Ann' }] } });
    // No related rows: the aggregate is null, which satisfies no predicate (Cid is left out).
    const notAll = await f.gql(
      '{ authors(where: {articles_aggregate: {bool_and: {arguments: featured, predicate: {_eq: false}}}}, order_by: {id: asc}) { name } }',
    );
    expect(notAll).toEqual({ data: { authors: [{ name: 'Ann' }, { name: 'Bob' }] } });
    const filtered = await f.gql(
      '{ authors(where: {articles_aggregate: {bool_and: {arguments: featured, filter: {words: {_lte: 100}}, predicate: {_eq: true}}}}) { name } }',
    );
    expect(filtered).toEqual({ data: { authors: [{ name: 'Ann' }] } });
    const t = await f.gql('{ __type(name: "articles_aggregate_bool_exp_bool_and") { inputFields { name type { kind name ofType { name } } } } }');
    expect(t.data.__type.inputFields).toEqual([
      {
        name: 'arguments',
        type: { kind: 'NON_NULL', name: null, ofType: { name: 'articles_select_column_articles_aggregate_bool_exp_bool_and_arguments_columns' } },
      },
      { name: 'distinct', type: { kind: 'SCALAR', name: 'Boolean', ofType: null } },
      { name: 'filter', type: { kind: 'INPUT_OBJECT', name: 'articles_bool_exp', ofType: null } },
      { name: 'predicate', type: { kind: 'NON_NULL', name: null, ofType: { name: 'Boolean_comparison_exp' } } },
    ]);
    const cols = await f.gql('{ __type(name: "articles_select_column_articles_aggregate_bool_exp_bool_or_arguments_columns") { enumValues { name } } }');
    expect(cols.data.__type.enumValues).toEqual([{ name: 'featured' }]);
    // A table without a boolean column has count only.
    const c = await f.gql('{ __type(name: "comments_aggregate_bool_exp") { inputFields { name } } }');
    expect(c.data.__type.inputFields).toEqual([{ name: 'count' }]);
  });
});

describe('inherited roles and computed fields', () => {
  beforeAll(async () => {
    const perm = (role: string, filter: unknown, computed: string[]): unknown => ({
      type: 'pg_create_select_permission',
      args: { table: 'authors', role, permission: { columns: ['id'], filter, computed_fields: computed } },
    });
    for (const b of [
      perm('only_ann', { id: { _eq: 1 } }, ['label']),
      perm('everyone', {}, []),
      perm('all_labels', {}, ['label']),
      { type: 'add_inherited_role', args: { role_name: 'mixed', role_set: ['only_ann', 'everyone'] } },
      { type: 'add_inherited_role', args: { role_name: 'full', role_set: ['only_ann', 'all_labels'] } },
    ]) {
      const r = await f.md(b);
      expect(r.status).toBe(200);
    }
  });
  const as = (role: string, q: string): Promise<any> => f.gql(q, undefined, { 'x-engine-role': role });

  it('keep a computed field any parent grants, null where no granting parent admits the row', async () => {
    expect(await as('mixed', '{ authors(order_by: {id: asc}) { id label } }')).toEqual({
      data: {
        authors: [
          { id: 1, label: 'Ann!' },
          { id: 2, label: null },
          { id: 3, label: null },
        ],
      },
    });
    expect(await as('full', '{ authors(order_by: {id: asc}) { id label } }')).toEqual({
      data: {
        authors: [
          { id: 1, label: 'Ann!' },
          { id: 2, label: 'Bob!' },
          { id: 3, label: 'Cid!' },
        ],
      },
    });
  });

  it('a hidden value neither filters nor sorts', async () => {
    expect(await as('mixed', '{ authors(where: {label: {_eq: "Bob!"}}) { id } }')).toEqual({ data: { authors: [] } });
    expect(await as('mixed', '{ authors(where: {label: {_eq: "Ann!"}}) { id } }')).toEqual({ data: { authors: [{ id: 1 }] } });
    // Hidden labels sort as nulls (first under desc), ties by id.
    const sorted = await as('mixed', '{ authors(order_by: [{label: desc}, {id: desc}]) { id } }');
    expect(sorted.data.authors.map((a: any) => a.id)).toEqual([3, 2, 1]);
  });
});

describe('column comparisons with the root table through relationships', () => {
  const as = (q: string): Promise<any> => f.gql(q, undefined, { 'x-engine-role': 'rooted' });
  beforeAll(async () => {
    const calls = [
      { table: 'authors', permission: { columns: ['id', 'name'], filter: {} } },
      // An article is visible when its author has more followers than it has words: ["$", "words"] is the article's column.
      { table: 'articles', permission: { columns: ['id', 'words'], filter: { author: { followers: { _cgt: ['$', 'words'] } } } } },
      // A comment is visible when its article's id is its own id (root column through a relationship, with _ceq).
      {
        table: 'comments',
        permission: { columns: ['id'], filter: { _or: [{ article: { id: { _ceq: ['$', 'id'] } } }, { id: { _ceq: ['id'] }, article_id: { _ceq: 'id' } }] } },
      },
    ];
    for (const c of calls) {
      const r = await f.md({ type: 'pg_create_select_permission', args: { ...c, role: 'rooted' } });
      expect(r.status).toBe(200);
    }
  });

  it('["$", column] reads the row the permission is on, at any depth', async () => {
    expect(await as('{ articles(order_by: {id: asc}) { id } }')).toEqual({ data: { articles: [{ id: 1 }, { id: 2 }] } });
    // comments 1..4 on articles 1,1,2,3: comment 1 is on article 1 (equal ids); comment 3 on article 2 is not.
    expect(await as('{ comments(order_by: {id: asc}) { id } }')).toEqual({ data: { comments: [{ id: 1 }] } });
  });

  it("embedded in another table's query, the root is still the permission's own table", async () => {
    expect(await as('{ authors(order_by: {id: asc}) { name articles(order_by: {id: asc}) { id } } }')).toEqual({
      data: {
        authors: [
          { name: 'Ann', articles: [{ id: 1 }, { id: 2 }] },
          { name: 'Bob', articles: [] },
          { name: 'Cid', articles: [] },
        ],
      },
    });
    expect(await as('{ authors(where: {articles: {id: {_gt: 0}}}) { name } }')).toEqual({ data: { authors: [{ name: 'Ann' }] } });
  });

  it('an unknown root column is an inconsistent permission, answered invalid-configuration', async () => {
    const r = await f.md({
      type: 'pg_create_select_permission',
      args: { table: 'articles', role: 'bad_root', permission: { columns: ['id'], filter: { author: { id: { _ceq: ['$', 'nope'] } } } } },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid-configuration');
    expect(r.body.error).toContain('["$", column]');
  });
});

describe('nested insert through an object relationship whose foreign key is on the child', () => {
  beforeAll(async () => {
    for (const b of [
      { type: 'pg_track_table', args: { table: 'author_detail' } },
      {
        type: 'pg_create_object_relationship',
        args: { table: 'authors', name: 'detail', using: { foreign_key_constraint_on: { table: 'author_detail', columns: ['author_id'] } } },
      },
      {
        type: 'pg_create_object_relationship',
        args: {
          table: 'authors',
          name: 'detail_manual',
          using: { manual_configuration: { remote_table: 'author_detail', column_mapping: { id: 'author_id' }, insertion_order: 'after_parent' } },
        },
      },
    ]) {
      const r = await f.md(b);
      expect(r.status).toBe(200);
    }
  });

  it("inserts the parent, then the detail row with the parent's key", async () => {
    const r = await f.gql('mutation { insert_authors_one(object: {name: "Dee", detail: {data: {phone: "123"}}}) { id name detail { phone author_id } } }');
    expect(r.errors).toBeUndefined();
    const a = r.data.insert_authors_one;
    expect(a).toEqual({ id: a.id, name: 'Dee', detail: { phone: '123', author_id: a.id } });
  });

  it('several parents, some with a detail, through the manual relationship too', async () => {
    const r = await f.gql(`mutation { insert_authors(objects: [
        {name: "Eve", detail_manual: {data: {phone: "5"}}}, {name: "Fay"}, {name: "Gil", detail: {data: {phone: "7"}}}]) {
      affected_rows returning { name detail { phone } } } }`);
    expect(r).toEqual({
      data: {
        insert_authors: {
          affected_rows: 5,
          returning: [
            { name: 'Eve', detail: { phone: '5' } },
            { name: 'Fay', detail: null },
            { name: 'Gil', detail: { phone: '7' } },
          ],
        },
      },
    });
  });

  it("the child's key column given as well is refused at the nested row", async () => {
    const r = await f.gql('mutation { insert_authors_one(object: {name: "Hal", detail: {data: {phone: "1", author_id: 1}}}) { id } }');
    expect(r).toEqual({
      errors: [
        {
          message: 'cannot insert "author_id" columns as their values are already being determined by parent insert',
          extensions: { path: '$.selectionSet.insert_authors_one.args.object.detail.data', code: 'validation-failed' },
        },
      ],
    });
    expect((await f.gql('{ authors(where: {name: {_eq: "Hal"}}) { id } }')).data.authors).toEqual([]);
  });
});

describe('functions with unnamed arguments', () => {
  beforeAll(async () => {
    for (const fn of ['authors_named', 'articles_words', 'articles_range']) {
      const r = await f.md({ type: 'pg_track_function', args: { function: fn } });
      expect(r.status).toBe(200);
    }
  });

  it('are tracked; an unnamed argument is arg_<position>', async () => {
    expect(await f.gql('{ authors_named(args: {arg_1: "B"}) { name } }')).toEqual({ data: { authors_named: [{ name: 'Bob' }] } });
    const t = await f.gql('{ __type(name: "articles_words_args") { inputFields { name type { kind name } } } }');
    expect(t.data.__type.inputFields.map((x: any) => x.name)).toEqual(['lo', 'arg_2', 'title_like']);
  });

  it('arguments up to the last unnamed one go by position, the rest by name, defaults apply', async () => {
    const q = (args: string): Promise<any> => f.gql(`{ articles_words(args: {${args}}, order_by: {id: asc}) { id } }`);
    expect(await q('lo: 60, arg_2: 200')).toEqual({ data: { articles_words: [{ id: 1 }] } });
    expect(await q('lo: 60')).toEqual({ data: { articles_words: [{ id: 1 }, { id: 2 }] } });
    expect(await q('lo: 0, title_like: "B%"')).toEqual({ data: { articles_words: [{ id: 3 }] } });
  });

  it('a positional argument cannot be given without those before it', async () => {
    expect((await f.gql('{ articles_range(args: {arg_1: 200}) { id } }')).data).toEqual({ articles_range: [{ id: 2 }] });
    expect((await f.gql('{ articles_range { id } }')).data.articles_range).toHaveLength(3);
    expect(await f.gql('{ articles_range(args: {arg_2: 60}) { id } }')).toEqual({
      errors: [
        {
          message: '"arg_2" cannot be given without "arg_1": the arguments up to an unnamed one are passed by position',
          extensions: { path: '$.selectionSet.articles_range.args.args.arg_2', code: 'validation-failed' },
        },
      ],
    });
  });
});
