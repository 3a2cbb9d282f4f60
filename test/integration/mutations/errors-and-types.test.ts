/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Database errors of writes as GraphQL errors (constraint-violation,
 * data-exception, naming the constraint or column, SQL for admins only), and
 * input values of every column type as literals and as variables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWriteFixture, type WriteFixture } from '../../support/write-schema.ts';

let f: WriteFixture;
beforeAll(async () => {
  f = await startWriteFixture();
  await f.db.sql("INSERT INTO authors (id, name, email) VALUES (1, 'Ann', 'ann@x'); SELECT setval('authors_id_seq', 1);");
  const doc = (await f.md({ type: 'export_metadata', args: {} })).body;
  const authors = doc.sources[0].tables.find((t: any) => t.table.name === 'authors');
  authors.select_permissions = [{ role: 'writer', permission: { columns: '*', filter: {} } }];
  authors.insert_permissions = [{ role: 'writer', permission: { columns: '*', check: {} } }];
  const r = await f.md({ type: 'replace_metadata', args: doc });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await f?.close();
});

const writer = { 'x-engine-role': 'writer' };

describe('database errors', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    [
      'unique',
      'mutation { insert_authors_one(object: {name: "B", email: "ann@x"}) { id } }',
      'constraint-violation',
      /^Uniqueness violation\. .*"authors_email_key"/,
    ],
    [
      'foreign key',
      'mutation { insert_articles_one(object: {title: "T", author_id: 999}) { id } }',
      'constraint-violation',
      /^Foreign key violation\. .*"articles_author_id_fkey"/,
    ],
    [
      'check',
      'mutation { insert_authors_one(object: {name: "C", rating: -1}) { id } }',
      'constraint-violation',
      /^Check constraint violation\. .*"authors_rating_check"/,
    ],
    ['not null', 'mutation { insert_authors_one(object: {name: null}) { id } }', 'constraint-violation', /^Not-NULL violation\. .*column "name"/],
    [
      'not null on update',
      'mutation { update_authors(where: {}, _set: {name: null}) { affected_rows } }',
      'constraint-violation',
      /^Not-NULL violation\. .*"name"/,
    ],
    [
      'foreign key on delete',
      'mutation { delete_authors(where: {id: {_eq: 1}}) { affected_rows } }',
      'constraint-violation',
      /^Foreign key violation\. .*"articles_author_id_fkey"/,
    ],
    ['bad uuid', 'mutation { insert_authors_one(object: {name: "U", uid: "not-a-uuid"}) { id } }', 'data-exception', /uuid.*"not-a-uuid"/],
    ['bad timestamp', 'mutation { insert_authors_one(object: {name: "U", created_at: "yesterday-ish"}) { id } }', 'data-exception', /timestamp with time zone/],
    ['bad date', 'mutation { insert_authors_one(object: {name: "U", born: "2020-02-30"}) { id } }', 'data-exception', /date/],
    ['out of range', 'mutation { insert_authors_one(object: {name: "U", small: 70000}) { id } }', 'data-exception', /out of range/],
    ['bad numeric string', 'mutation { insert_authors_one(object: {name: "U", rating: "lots"}) { id } }', 'data-exception', /numeric/],
    ['bad enum label', 'mutation { insert_authors_one(object: {name: "U", mood: "angry"}) { id } }', 'data-exception', /enum mood.*"angry"/],
  ];
  it.each(cases)('%s', async (_name, query, code, message) => {
    if (_name === 'foreign key on delete') await f.db.sql("INSERT INTO articles (title, author_id) VALUES ('pin', 1)");
    const r = await f.gql(query);
    expect(r.data).toBeUndefined();
    expect(r.errors[0].extensions.code).toBe(code);
    expect(r.errors[0].message).toMatch(message);
    expect(r.errors[0].extensions.internal.statement).toEqual(expect.any(String));
  });

  it('a non-admin role sees the message but no SQL', async () => {
    const r = await f.gql('mutation { insert_authors_one(object: {name: "B", email: "ann@x"}) { id } }', undefined, writer);
    expect(r.errors[0].extensions.code).toBe('constraint-violation');
    expect(r.errors[0].message).toContain('authors_email_key');
    expect(r.errors[0].extensions.internal).toBeUndefined();
  });

  it('a role that may write nothing: no mutations exist', async () => {
    const r = await f.gql('mutation { insert_authors_one(object: {name: "x"}) { id } }', undefined, { 'x-engine-role': 'nobody' });
    expect(r.errors[0]).toMatchObject({ message: 'no mutations exist', extensions: { code: 'validation-failed' } });
  });
});

describe('input values of every column type', () => {
  const values = {
    name: 'Typed',
    rating: '12345678901234567890.123456789',
    active: false,
    created_at: '2021-03-04T05:06:07.5+02:00',
    uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    followers: '9007199254740993',
    score: 1.5,
    small: 12,
    born: '1999-12-31',
    wakes: '07:30:00',
    seen: '2020-01-01T00:00:00',
    meta: { nested: [1, 'two', { three: true }], n: null },
    doc: [1, { a: 'b' }],
    tags: ['x', 'y'],
    nums: [1, 2, 3],
    mood: 'happy',
  };
  const selection = 'name rating active created_at uid followers score small born wakes seen meta doc tags nums mood';
  const expected = {
    name: 'Typed',
    rating: 12345678901234567890.123456789,
    active: false,
    created_at: '2021-03-04T03:06:07.5+00:00',
    uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    followers: 9007199254740993,
    score: 1.5,
    small: 12,
    born: '1999-12-31',
    wakes: '07:30:00',
    seen: '2020-01-01T00:00:00',
    meta: { nested: [1, 'two', { three: true }], n: null },
    doc: [1, { a: 'b' }],
    tags: ['x', 'y'],
    nums: [1, 2, 3],
    mood: 'happy',
  };

  it('as variables of the declared scalar types', async () => {
    const r = await f.gql(
      `mutation($name: String!, $rating: numeric, $active: Boolean, $created_at: timestamptz, $uid: uuid, $followers: bigint, $score: float8,
          $small: smallint, $born: date, $wakes: time, $seen: timestamp, $meta: jsonb, $doc: json, $tags: [String!], $nums: [Int!], $mood: mood) {
        insert_authors_one(object: {name: $name, rating: $rating, active: $active, created_at: $created_at, uid: $uid, followers: $followers, score: $score,
          small: $small, born: $born, wakes: $wakes, seen: $seen, meta: $meta, doc: $doc, tags: $tags, nums: $nums, mood: $mood}) { ${selection} } }`,
      values,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_authors_one).toEqual(expected);
  });

  it('as one object variable', async () => {
    const r = await f.gql(`mutation($o: authors_insert_input!) { insert_authors_one(object: $o) { ${selection} } }`, { o: { ...values, name: 'Typed2' } });
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_authors_one).toEqual({ ...expected, name: 'Typed2' });
  });

  it('as literals; numeric and bigint keep full precision', async () => {
    const r = await f.gql(`mutation { insert_authors_one(object: {name: "Lit", rating: 12345678901234567890.123456789, followers: 9223372036854775807,
        created_at: "2021-03-04T05:06:07.5+02:00", uid: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", meta: {nested: [1, "two", {three: true}], n: null},
        tags: ["x", "y"], nums: [1, 2, 3], mood: "happy"}) { id } }`);
    expect(r.errors).toBeUndefined();
    const rows = await f.rows(
      `SELECT rating::text, followers::text, created_at = '2021-03-04T03:06:07.5Z' AS at, meta, tags, nums, mood::text FROM authors WHERE id = ${r.data.insert_authors_one.id}`,
    );
    expect(rows).toEqual([
      {
        rating: '12345678901234567890.123456789',
        followers: '9223372036854775807',
        at: true,
        meta: { nested: [1, 'two', { three: true }], n: null },
        tags: ['x', 'y'],
        nums: [1, 2, 3],
        mood: 'happy',
      },
    ]);
  });

  it('jsonb takes any JSON value; numeric as number or string', async () => {
    for (const meta of [1, 'text', true, null, [], { a: [{}] }]) {
      const r = await f.gql('mutation($m: jsonb, $r: numeric) { insert_authors_one(object: {name: "J", meta: $m, rating: $r}) { meta rating } }', {
        m: meta,
        r: 2,
      });
      expect(r.errors).toBeUndefined();
      expect(r.data.insert_authors_one).toEqual({ meta, rating: 2 });
    }
    const s = await f.gql('mutation($r: numeric) { update_authors(where: {name: {_eq: "J"}}, _inc: {rating: $r}) { returning { rating } } }', { r: '0.5' });
    expect(s.data.update_authors.returning[0]).toEqual({ rating: 2.5 });
  });

  it('a wrongly typed variable is refused before any SQL', async () => {
    const r = await f.gql('mutation($s: smallint) { insert_authors_one(object: {name: "x", small: $s}) { id } }', { s: { not: 'a number' } });
    expect(r.errors[0].extensions.code).toMatch(/validation-failed|data-exception/);
    const i = await f.gql('mutation($n: [Int!]) { insert_authors_one(object: {name: "x", nums: $n}) { id } }', { n: ['a'] });
    expect(i.errors[0].extensions.code).toBe('validation-failed');
  });
});
