/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote relationships for roles other than admin with
 * ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS on, through HTTP on real
 * PostgreSQL and two real GraphQL servers that record what they receive:
 * a table → remote relationship is shown to a role whose view of the remote
 * holds the joined field with the arguments the join fills, typed by the
 * role's view; the view's presets reach the remote (session variables bound
 * per request, a join-filled argument keeping the join's value); remote type
 * → table and remote type → remote relationships need both ends; inherited
 * roles see the union; with the setting off every role sees everything;
 * relationships on a remote interface are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let people: GraphqlTestServer;
let geo: GraphqlTestServer;

const PEOPLE_SDL = `
interface Entity { id: ID! }
enum Level { LOW HIGH }
type Person implements Entity { id: ID! name: String! email: String! org: String! country: String! }
input PersonWhere { org: String country: String level: Level }
type Query {
  person(id: ID!, org: String): Person
  people(where: PersonWhere!): [Person!]!
  secretPerson(id: ID!): Person
  entities: [Entity!]!
}
`;
const PERSONS = [
  { id: 'p1', name: 'Ann', email: 'ann@a', org: 'a', country: 'FR' },
  { id: 'p2', name: 'Bob', email: 'bob@a', org: 'a', country: 'DE' },
  { id: 'p3', name: 'Cid', email: 'cid@b', org: 'b', country: 'FR' },
];
const peopleRoot = {
  // `org` given: only a person of that org (a tenant preset in the role's view).
  person: ({ id, org }: { id: string; org?: string }) => PERSONS.find((p) => p.id === id && (org === undefined || p.org === org)) ?? null,
  people: ({ where }: { where: { org?: string; country?: string } }) =>
    PERSONS.filter((p) => (where.org === undefined || p.org === where.org) && (where.country === undefined || p.country === where.country)),
  secretPerson: ({ id }: { id: string }) => PERSONS.find((p) => p.id === id) ?? null,
  entities: () => PERSONS.map((p) => ({ ...p, __typename: 'Person' })),
};
const GEO_SDL = `
type Country { code: String! name: String! population: Int! }
type Query { country(code: String!, lang: String): Country }
`;
const COUNTRIES: Record<string, { fr: string; en: string; population: number }> = {
  FR: { fr: 'France', en: 'France', population: 68 },
  DE: { fr: 'Allemagne', en: 'Germany', population: 84 },
};
const geoRoot = {
  country: ({ code, lang }: { code: string; lang?: string }) => {
    const c = COUNTRIES[code];
    return c === undefined ? null : { code, name: lang === 'fr' ? c.fr : c.en, population: c.population };
  },
};

const USER_PEOPLE = `
type Person { id: ID! name: String! country: String! }
enum Level { LOW HIGH }
input PersonWhere { org: String @preset(value: "x-engine-org") country: String @preset(value: "x-engine-country") level: Level }
type Query {
  person(id: ID!, org: String @preset(value: "x-engine-org")): Person
  people(where: PersonWhere!): [Person!]!
}`;
const USER_GEO = `
type Country { code: String! name: String! }
type Query { country(code: String!, lang: String @preset(value: "fr", static: true)): Country }`;
const GUEST_PEOPLE = `
type Person { id: ID! name: String! }
type Query { person(id: ID!): Person }`;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const ok = async (type: string, args: unknown): Promise<void> => {
  const r = await md(type, args);
  expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
};
const as = async (role: string, query: string, session: Record<string, string> = {}): Promise<any> =>
  (await engine.graphql(query, undefined, { 'X-Engine-Role': role, ...session })).body;
const fieldsOf = async (role: string, type: string): Promise<string[] | null> => {
  const r = await as(role, `{ __type(name: "${type}") { fields { name } } }`, { 'X-Engine-Org': 'a', 'X-Engine-Country': 'FR' });
  return r.data.__type === null ? null : (r.data.__type.fields as Array<{ name: string }>).map((f) => f.name).sort();
};
const lastPeopleRequest = (): any => people.queries().at(-1)?.body;

beforeAll(async () => {
  people = await startGraphqlServer(PEOPLE_SDL, peopleRoot);
  geo = await startGraphqlServer(GEO_SDL, geoRoot);
  db = await createTestDatabase('rrperm');
  await db.sql(`CREATE TABLE account (id int PRIMARY KEY, person_id text NOT NULL, org text NOT NULL);
                CREATE TABLE note (id int PRIMARY KEY, person_id text NOT NULL, org text NOT NULL, body text NOT NULL);
                INSERT INTO account VALUES (1, 'p1', 'a'), (2, 'p2', 'a'), (3, 'p3', 'b');
                INSERT INTO note VALUES (1, 'p1', 'a', 'ann-a'), (2, 'p1', 'b', 'ann-b'), (3, 'p2', 'a', 'bob-a');`);
  engine = await startTestEngine({ databaseUrl: db.url, enableRemoteSchemaPermissions: true });
  for (const t of ['account', 'note']) await ok('pg_track_table', { table: t });
  await ok('add_remote_schema', { name: 'people', definition: { url: people.url, timeout_seconds: 5 } });
  await ok('add_remote_schema', { name: 'geo', definition: { url: geo.url, timeout_seconds: 5 } });
  const toPeople = (name: string, lhs: string[], remoteField: unknown): unknown => ({
    table: 'account',
    name,
    definition: { to_remote_schema: { remote_schema: 'people', lhs_fields: lhs, remote_field: remoteField } },
  });
  await ok('pg_create_remote_relationship', toPeople('person', ['person_id'], { person: { arguments: { id: '$person_id' } } }));
  await ok('pg_create_remote_relationship', toPeople('colleagues', ['org'], { people: { arguments: { where: { org: '$org' } } } }));
  await ok('pg_create_remote_relationship', toPeople('secret', ['person_id'], { secretPerson: { arguments: { id: '$person_id' } } }));
  // Fills `org`, which guest's view hides (no preset) and user's view presets.
  await ok('pg_create_remote_relationship', toPeople('sameOrg', ['person_id', 'org'], { person: { arguments: { id: '$person_id', org: '$org' } } }));
  await ok('create_remote_schema_remote_relationship', {
    remote_schema: 'people',
    type_name: 'Person',
    name: 'notes',
    definition: { to_source: { source: 'default', table: 'note', relationship_type: 'array', field_mapping: { id: 'person_id' } } },
  });
  await ok('create_remote_schema_remote_relationship', {
    remote_schema: 'people',
    type_name: 'Person',
    name: 'home',
    definition: { to_remote_schema: { remote_schema: 'geo', lhs_fields: ['country'], remote_field: { country: { arguments: { code: '$country' } } } } },
  });
  for (const role of ['user', 'guest', 'nobody', 'viewer']) {
    await ok('pg_create_select_permission', { table: 'account', role, permission: { columns: ['id', 'person_id', 'org'], filter: {} } });
  }
  await ok('pg_create_select_permission', {
    table: 'note',
    role: 'user',
    permission: { columns: ['id', 'body'], filter: { org: { _eq: 'X-Engine-Org' } } },
  });
  await ok('add_remote_schema_permissions', { remote_schema: 'people', role: 'user', definition: { schema: USER_PEOPLE } });
  await ok('add_remote_schema_permissions', { remote_schema: 'geo', role: 'user', definition: { schema: USER_GEO } });
  await ok('add_remote_schema_permissions', { remote_schema: 'people', role: 'guest', definition: { schema: GUEST_PEOPLE } });
  // viewer may read geo, but its view of Person hides `country`, the join field of `home`.
  await ok('add_remote_schema_permissions', { remote_schema: 'people', role: 'viewer', definition: { schema: GUEST_PEOPLE } });
  await ok('add_remote_schema_permissions', { remote_schema: 'geo', role: 'viewer', definition: { schema: USER_GEO } });
});

afterAll(async () => {
  await engine?.close();
  await people?.close();
  await geo?.close();
  await db?.drop();
});

describe('what each role sees', () => {
  it('a table shows the remote relationships the role’s view of the remote admits', async () => {
    const base = ['id', 'org', 'person_id'];
    expect(await fieldsOf('admin', 'account')).toEqual([...base, 'colleagues', 'person', 'sameOrg', 'secret'].sort());
    expect(await fieldsOf('user', 'account')).toEqual([...base, 'colleagues', 'person', 'sameOrg'].sort());
    // guest's view has no `people` field and hides person's `org` argument (sameOrg fills it): only `person`;
    // nobody has no view of the remote at all.
    expect(await fieldsOf('guest', 'account')).toEqual([...base, 'person'].sort());
    expect(await fieldsOf('nobody', 'account')).toEqual(base);
  });

  it("the remote's types are the role's view, with the type relationships whose both ends it may see", async () => {
    expect(await fieldsOf('admin', 'Person')).toEqual(['country', 'email', 'home', 'id', 'name', 'notes', 'org']);
    expect(await fieldsOf('user', 'Person')).toEqual(['country', 'home', 'id', 'name', 'notes']);
    // guest: no select permission on note, no view of geo (and `country`, home's join field, is hidden).
    expect(await fieldsOf('guest', 'Person')).toEqual(['id', 'name']);
    expect(await fieldsOf('nobody', 'Person')).toBeNull();
    // viewer may read geo, but not `country`, home's join field.
    expect(await fieldsOf('viewer', 'Person')).toEqual(['id', 'name']);
    expect(await fieldsOf('viewer', 'Country')).toEqual(['code', 'name']);
    expect(await fieldsOf('user', 'Country')).toEqual(['code', 'name']);
  });

  it('hidden fields under a relationship are refused', async () => {
    const email = await as('user', '{ account { person { email } } }', { 'X-Engine-Org': 'a' });
    expect(email.errors[0].extensions.code).toBe('validation-failed');
    const colleagues = await as('guest', '{ account { colleagues { name } } }');
    expect(colleagues.errors[0].extensions.code).toBe('validation-failed');
    const population = await as('user', '{ account { person { home { population } } } }', { 'X-Engine-Org': 'a' });
    expect(population.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('results and presets', () => {
  it('admin gets every relationship, unfiltered, and the remote gets no preset', async () => {
    const r = (await engine.graphql('{ account(order_by: {id: asc}) { id person { name email } secret { email } } }')).body as any;
    expect(r.data.account).toEqual([
      { id: 1, person: { name: 'Ann', email: 'ann@a' }, secret: { email: 'ann@a' } },
      { id: 2, person: { name: 'Bob', email: 'bob@a' }, secret: { email: 'bob@a' } },
      { id: 3, person: { name: 'Cid', email: 'cid@b' }, secret: { email: 'cid@b' } },
    ]);
    expect(lastPeopleRequest().query).not.toContain('__engine_session');
  });

  it("a role's argument presets are injected into the join, session variables bound per request", async () => {
    const query = '{ account(order_by: {id: asc}) { id person { name } } }';
    const before = people.queries().length;
    expect((await as('user', query, { 'X-Engine-Org': 'a' })).data.account).toEqual([
      { id: 1, person: { name: 'Ann' } },
      { id: 2, person: { name: 'Bob' } },
      { id: 3, person: null },
    ]);
    const sent = lastPeopleRequest();
    expect(people.queries().length - before).toBe(1);
    expect(sent.query).toMatch(/person\(id: "p1", org: \$__engine_session_\d+\)/);
    expect(Object.values(sent.variables)).toEqual(['a']);
    // The same plan for another session: its own value, never the previous request's.
    expect((await as('user', query, { 'X-Engine-Org': 'b' })).data.account).toEqual([
      { id: 1, person: null },
      { id: 2, person: null },
      { id: 3, person: { name: 'Cid' } },
    ]);
    expect(Object.values(lastPeopleRequest().variables)).toEqual(['b']);
    // sameOrg fills the preset `org` from the row: the join's value is sent, not the session's.
    expect((await as('user', '{ account(order_by: {id: asc}) { sameOrg { name } } }', { 'X-Engine-Org': 'a' })).data.account).toEqual([
      { sameOrg: { name: 'Ann' } },
      { sameOrg: { name: 'Bob' } },
      { sameOrg: { name: 'Cid' } },
    ]);
    expect(lastPeopleRequest().query).toContain('person(id: "p3", org: "b")');
    expect(lastPeopleRequest().variables).toEqual({});
  });

  it('preset input fields go into the object the join writes; a field the join fills keeps its value', async () => {
    const r = await as('user', '{ account(order_by: {id: asc}) { id colleagues { name } } }', { 'X-Engine-Org': 'a', 'X-Engine-Country': 'FR' });
    // Row 3 (org b) gets org b's people: the join's `org` wins over the role's org preset, as v2; the country preset applies.
    expect(r.data.account).toEqual([
      { id: 1, colleagues: [{ name: 'Ann' }] },
      { id: 2, colleagues: [{ name: 'Ann' }] },
      { id: 3, colleagues: [{ name: 'Cid' }] },
    ]);
    const sent = lastPeopleRequest();
    expect(sent.query).toMatch(/people\(where: \{org: "a", country: \$__engine_session_\d+\}\)/);
    expect(sent.query).toMatch(/people\(where: \{org: "b", country: \$__engine_session_\d+\}\)/);
    expect(Object.values(sent.variables)).toEqual(['FR']);
  });

  it('remote → table applies the role’s table permission; remote → remote the role’s view and presets of the target', async () => {
    const q = '{ account(where: {id: {_eq: 1}}) { person { name notes { body } home { name } } } }';
    const geoBefore = geo.queries().length;
    expect((await as('user', q, { 'X-Engine-Org': 'a' })).data).toEqual({
      account: [{ person: { name: 'Ann', notes: [{ body: 'ann-a' }], home: { name: 'France' } } }],
    });
    expect((await as('user', q, { 'X-Engine-Org': 'b' })).data).toEqual({ account: [{ person: null }] });
    expect(geo.queries().length - geoBefore).toBe(1);
    expect(geo.queries().at(-1)?.body.query).toMatch(/country\(code: "FR", lang: "fr"\)/);
    const admin = (await engine.graphql('{ account(where: {id: {_eq: 1}}) { person { notes(order_by: {id: asc}) { body } home { name population } } } }'))
      .body as any;
    expect(admin.data.account[0].person).toEqual({ notes: [{ body: 'ann-a' }, { body: 'ann-b' }], home: { name: 'France', population: 68 } });
    expect(geo.queries().at(-1)?.body.query).toMatch(/country\(code: "FR"\)/);
    // From the role's own root field too.
    expect((await as('user', '{ person(id: "p2") { name home { name } } }', { 'X-Engine-Org': 'a' })).data).toEqual({
      person: { name: 'Bob', home: { name: 'Allemagne' } },
    });
  });

  it('a join whose preset names a session variable the request lacks is refused', async () => {
    const r = await as('user', '{ account { person { name } } }');
    expect(r.errors[0].message).toContain('x-engine-org');
  });

  it('roles with different views get their own answers, whichever asks first', async () => {
    const q = '{ account(order_by: {id: asc}) { person { name } } }';
    const [guest, user] = await Promise.all([as('guest', q), as('user', q, { 'X-Engine-Org': 'b' })]);
    expect(guest.data.account.map((a: any) => a.person?.name ?? null)).toEqual(['Ann', 'Bob', 'Cid']);
    expect(user.data.account.map((a: any) => a.person?.name ?? null)).toEqual([null, null, 'Cid']);
  });
});

describe('inherited roles and the setting off', () => {
  it('an inherited role sees the union of its members’ views and table permissions', async () => {
    await ok('add_inherited_role', { role_name: 'both', role_set: ['user', 'guest'] });
    try {
      expect(await fieldsOf('both', 'account')).toEqual(['colleagues', 'id', 'org', 'person', 'person_id', 'sameOrg']);
      expect(await fieldsOf('both', 'Person')).toEqual(['country', 'home', 'id', 'name', 'notes']);
      const r = await as('both', '{ account(where: {id: {_eq: 1}}) { person { name notes { body } } } }', { 'X-Engine-Org': 'a' });
      expect(r.data).toEqual({ account: [{ person: { name: 'Ann', notes: [{ body: 'ann-a' }] } }] });
      expect(lastPeopleRequest().query).toMatch(/person\(id: "p1", org: \$__engine_session_\d+\)/);
    } finally {
      await ok('drop_inherited_role', { role_name: 'both' });
    }
  });

  it('with the setting off every role sees every remote relationship whole', async () => {
    const open = await startTestEngine({ databaseUrl: db.url });
    try {
      const r = (
        await open.graphql('{ account(where: {id: {_eq: 3}}) { secret { email } person { email home { population } } } }', undefined, {
          'X-Engine-Role': 'nobody',
        })
      ).body as any;
      expect(r).toEqual({ data: { account: [{ secret: { email: 'cid@b' }, person: { email: 'cid@b', home: { population: 68 } } }] } });
    } finally {
      await open.close();
    }
  });
});

describe('relationships on a remote interface', () => {
  it('are refused as v2 refuses them, storing nothing', async () => {
    const before = (await md('export_metadata', {})).body;
    const r = await md('create_remote_schema_remote_relationship', {
      remote_schema: 'people',
      type_name: 'Entity',
      name: 'notes',
      definition: { to_source: { source: 'default', table: 'note', relationship_type: 'array', field_mapping: { id: 'person_id' } } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toContain('remote relationships on a remote schema can only be defined on object types');
    expect(r.body.error).toContain('"Entity" of remote schema "people" is an interface');
    expect((await md('export_metadata', {})).body).toEqual(before);
  });
});
