/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/** Insert, update and delete permissions of a role: fields, columns, presets, filters and checks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWriteFixture, type WriteFixture } from '../../support/write-schema.ts';

let f: WriteFixture;
beforeAll(async () => {
  f = await startWriteFixture();
  await f.db.sql(`INSERT INTO authors (id, name) VALUES (1, 'Me'), (2, 'Other'); SELECT setval('authors_id_seq', 2);
    INSERT INTO articles (id, title, author_id, words) VALUES (1, 'Mine', 1, 10), (2, 'Theirs', 2, 20); SELECT setval('articles_id_seq', 2);`);
  const doc = (await f.md({ type: 'export_metadata', args: {} })).body;
  const table = (name: string): any => doc.sources[0].tables.find((t: any) => t.table.name === name);
  table('authors').select_permissions = [{ role: 'user', permission: { columns: ['id', 'name', 'email', 'followers'], filter: {} } }];
  table('authors').insert_permissions = [
    { role: 'user', permission: { columns: ['name', 'email'], check: { name: { _neq: 'forbidden' } }, set: { followers: 'X-Engine-User-Id' } } },
  ];
  table('articles').select_permissions = [{ role: 'user', permission: { columns: '*', filter: {} } }];
  table('articles').insert_permissions = [
    { role: 'user', permission: { columns: ['title', 'author_id', 'words'], check: { author_id: { _eq: 'X-Engine-User-Id' } } } },
  ];
  table('articles').update_permissions = [
    {
      role: 'user',
      permission: {
        columns: ['title', 'words'],
        filter: { author_id: { _eq: 'X-Engine-User-Id' } },
        check: { words: { _lt: 1000 } },
        set: { status: 'edited' },
      },
    },
  ];
  table('articles').delete_permissions = [{ role: 'user', permission: { filter: { author_id: { _eq: 'X-Engine-User-Id' } } } }];
  table('labels').select_permissions = [{ role: 'user', permission: { columns: '*', filter: {} } }];
  table('comments').insert_permissions = [{ role: 'blind', permission: { columns: '*', check: {} } }];
  const r = await f.md({ type: 'replace_metadata', args: doc });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await f?.close();
});

const user = { 'x-engine-role': 'user', 'x-engine-user-id': '1' };

describe('mutation permissions', () => {
  it('fields and input columns follow the permissions', async () => {
    const r = await f.gql(
      '{ __schema { mutationType { fields { name } } } input: __type(name: "authors_insert_input") { inputFields { name } } }',
      undefined,
      user,
    );
    const fields = r.data.__schema.mutationType.fields.map((x: any) => x.name).sort();
    expect(fields).toEqual([
      'delete_articles',
      'delete_articles_by_pk',
      'insert_articles',
      'insert_articles_one',
      'insert_authors',
      'insert_authors_one',
      'update_articles',
      'update_articles_by_pk',
      'update_articles_many',
    ]);
    // followers is preset, so not an input; articles is a relationship to an insertable table.
    expect(r.data.input.inputFields.map((x: any) => x.name)).toEqual(['name', 'email', 'articles']);
    const set = await f.gql('{ __type(name: "articles_set_input") { inputFields { name } } }', undefined, user);
    expect(set.data.__type.inputFields.map((x: any) => x.name)).toEqual(['title', 'words']);
  });

  it('insert: presets from session variables, check passes', async () => {
    const r = await f.gql('mutation { insert_authors_one(object: {name: "New", email: "new@x"}) { name followers } }', undefined, user);
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_authors_one).toEqual({ name: 'New', followers: 1 });
  });

  it('insert: a failed check is a permission-error and nothing is written', async () => {
    const r = await f.gql('mutation { insert_authors(objects: [{name: "ok1"}, {name: "forbidden"}]) { affected_rows } }', undefined, user);
    expect(r.errors[0]).toMatchObject({ message: 'check constraint of an insert permission has failed', extensions: { code: 'permission-error' } });
    expect(r.errors[0].extensions.internal).toBeUndefined();
    expect(await f.rows("SELECT count(*)::int AS n FROM authors WHERE name IN ('ok1', 'forbidden')")).toEqual([{ n: 0 }]);
    const other = await f.gql('mutation { insert_articles_one(object: {title: "Spoof", author_id: 2}) { id } }', undefined, user);
    expect(other.errors[0].extensions.code).toBe('permission-error');
  });

  it('insert: the check applies to nested rows too', async () => {
    // The nested article belongs to the new author, not to user 1: its check fails.
    const r = await f.gql('mutation { insert_authors_one(object: {name: "Nest", articles: {data: [{title: "N"}]}}) { id } }', undefined, user);
    expect(r.errors[0].extensions.code).toBe('permission-error');
    expect(await f.rows("SELECT count(*)::int AS n FROM authors WHERE name = 'Nest'")).toEqual([{ n: 0 }]);
  });

  it('update: the filter limits rows, presets apply, a failed check rolls back', async () => {
    const r = await f.gql('mutation { update_articles(where: {}, _set: {title: "Edited"}) { affected_rows returning { id title status } } }', undefined, user);
    expect(r.data.update_articles).toEqual({ affected_rows: 1, returning: [{ id: 1, title: 'Edited', status: 'edited' }] });
    const bad = await f.gql('mutation { update_articles_by_pk(pk_columns: {id: 1}, _inc: {words: 5000}) { words } }', undefined, user);
    expect(bad.errors[0]).toMatchObject({ message: 'check constraint of an update permission has failed', extensions: { code: 'permission-error' } });
    expect(await f.rows('SELECT id, words FROM articles ORDER BY id')).toEqual([
      { id: 1, words: 10 },
      { id: 2, words: 20 },
    ]);
    const notMine = await f.gql('mutation { update_articles_by_pk(pk_columns: {id: 2}, _set: {title: "Hijack"}) { id } }', undefined, user);
    expect(notMine.data.update_articles_by_pk).toBeNull();
  });

  it('update: columns outside the permission are not inputs', async () => {
    const r = await f.gql('mutation { update_articles(where: {}, _set: {status: "x"}) { affected_rows } }', undefined, user);
    expect(r.errors[0].extensions.code).toBe('validation-failed');
  });

  it('delete: the filter limits rows', async () => {
    const r = await f.gql('mutation { delete_articles(where: {}) { affected_rows returning { id } } }', undefined, user);
    expect(r.data.delete_articles).toEqual({ affected_rows: 1, returning: [{ id: 1 }] });
    expect(await f.rows('SELECT id FROM articles ORDER BY id')).toEqual([{ id: 2 }]);
  });

  it('insert without select permission: only affected_rows', async () => {
    const r = await f.gql('{ __type(name: "comments_mutation_response") { fields { name } } }', undefined, { 'x-engine-role': 'blind' });
    expect(r.data.__type.fields.map((x: any) => x.name)).toEqual(['affected_rows']);
    const ins = await f.gql('mutation { insert_comments(objects: [{article_id: 2, body: "b"}]) { affected_rows } }', undefined, { 'x-engine-role': 'blind' });
    expect(ins.data.insert_comments).toEqual({ affected_rows: 1 });
  });
});
