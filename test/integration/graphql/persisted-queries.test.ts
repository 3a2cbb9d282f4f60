/**
 * Automatic persisted queries (Note [Automatic persisted queries]) with the
 * real clients against a real engine: Apollo Client's PersistedQueryLink (by
 * POST, and by GET for hashed queries) and urql's persistedExchange. The
 * requests each client sends are recorded: the first carries only the hash,
 * is answered PersistedQueryNotFound, and is sent again with the text; a
 * second client then sends only the hash and gets its data. The allow-list
 * still applies to a query sent by hash.
 */
import { createHash } from 'node:crypto';
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { Client, fetchExchange, gql } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** What one client request carried: its method, and whether it had the query text and the hash. */
interface Sent {
  readonly method: string;
  readonly text: boolean;
  readonly hash: string | null;
}

/** A fetch that records what each request carried (POST body or GET query string). */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = init?.method ?? 'GET';
    let body: Record<string, unknown>;
    if (method === 'GET') {
      const ext = url.searchParams.get('extensions');
      body = { query: url.searchParams.get('query') ?? undefined, extensions: ext === null ? undefined : (JSON.parse(ext) as unknown) };
    } else {
      body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    }
    const ext = body['extensions'] as { persistedQuery?: { sha256Hash?: string } } | undefined;
    sent.push({ method, text: typeof body['query'] === 'string' && body['query'] !== '', hash: ext?.persistedQuery?.sha256Hash ?? null });
    return await fetch(input, init);
  };
}

beforeAll(async () => {
  db = await createTestDatabase('apq');
  await db.sql(`CREATE TABLE book (id int PRIMARY KEY, title text NOT NULL); INSERT INTO book VALUES (1, 'Dune'), (2, 'Emma');`);
  engine = await startTestEngine({ databaseUrl: db.url });
  expect((await engine.metadata({ type: 'pg_track_table', args: { table: 'book' } })).status).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

const BOOK = `query Book($id: Int!) {
  book_by_pk(id: $id) {
    id
    title
  }
}`;

describe("Apollo Client's PersistedQueryLink", () => {
  const client = (sent: Sent[], useGETForHashedQueries: boolean): ApolloClient =>
    new ApolloClient({
      cache: new InMemoryCache(),
      link: new PersistedQueryLink({ sha256, useGETForHashedQueries }).concat(new HttpLink({ uri: `${engine.url}/v1/graphql`, fetch: recordingFetch(sent) })),
    });

  it('sends the hash, then the text on PersistedQueryNotFound; later clients send the hash alone', async () => {
    const sent: Sent[] = [];
    const first = await client(sent, false).query({ query: apolloGql(BOOK), variables: { id: 1 }, fetchPolicy: 'no-cache' });
    expect(first.data).toEqual({ book_by_pk: { __typename: 'book', id: 1, title: 'Dune' } });
    const hash = sent[0]?.hash;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(sent).toEqual([
      { method: 'POST', text: false, hash },
      { method: 'POST', text: true, hash },
    ]);
    const again: Sent[] = [];
    const second = await client(again, false).query({ query: apolloGql(BOOK), variables: { id: 2 }, fetchPolicy: 'no-cache' });
    expect(second.data).toEqual({ book_by_pk: { __typename: 'book', id: 2, title: 'Emma' } });
    expect(again).toEqual([{ method: 'POST', text: false, hash }]);
  });

  it('by GET for hashed queries', async () => {
    const query = `query Titles {
  book(order_by: {id: asc}) {
    title
  }
}`;
    const sent: Sent[] = [];
    const first = await client(sent, true).query({ query: apolloGql(query), fetchPolicy: 'no-cache' });
    expect(first.data).toEqual({
      book: [
        { __typename: 'book', title: 'Dune' },
        { __typename: 'book', title: 'Emma' },
      ],
    });
    expect(sent.map((s) => [s.method, s.text])).toEqual([
      ['GET', false],
      ['POST', true],
    ]);
    const again: Sent[] = [];
    expect((await client(again, true).query({ query: apolloGql(query), fetchPolicy: 'no-cache' })).data).toEqual(first.data);
    expect(again.map((s) => [s.method, s.text])).toEqual([['GET', false]]);
  });
});

describe("urql's persistedExchange", () => {
  const client = (sent: Sent[]): Client =>
    new Client({
      url: `${engine.url}/v1/graphql`,
      fetch: recordingFetch(sent),
      exchanges: [persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
      requestPolicy: 'network-only',
    });
  const QUERY = gql`
    query Count {
      book_aggregate {
        aggregate {
          count
        }
      }
    }
  `;

  it('sends the hash, then the text on PersistedQueryNotFound; a later client sends the hash alone', async () => {
    const sent: Sent[] = [];
    const first = await client(sent).query(QUERY, {}).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data).toEqual({ book_aggregate: { aggregate: { count: 2 } } });
    expect(sent.map((s) => s.text)).toEqual([false, true]);
    const again: Sent[] = [];
    const second = await client(again).query(QUERY, {}).toPromise();
    expect(second.data).toEqual(first.data);
    expect(again).toEqual([{ method: 'GET', text: false, hash: sent[0]?.hash ?? '' }]);
  });
});

describe('the allow-list', () => {
  it('applies to a query sent by hash as to its text', async () => {
    const allowlisted = await startTestEngine({ databaseUrl: db.url, enableAllowlist: true, adminSecret: 'adm' });
    try {
      const text = '{ book { id } }';
      const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(text) } };
      const user = { 'x-engine-admin-secret': 'adm', 'x-engine-role': 'reader' };
      expect(
        (
          await allowlisted.metadata(
            { type: 'pg_create_select_permission', args: { table: 'book', role: 'reader', permission: { columns: ['id'], filter: {} } } },
            { 'x-engine-admin-secret': 'adm' },
          )
        ).status,
      ).toBe(200);
      const refused = await allowlisted.post<{ errors: Array<{ message: string; extensions: { code: string } }> }>(
        '/v1/graphql',
        { query: text, extensions },
        user,
      );
      expect(refused.body.errors[0]?.extensions.code).toBe('validation-failed');
      expect(refused.body.errors[0]?.message).toBe('query is not allowed');
      const byHash = await allowlisted.post<typeof refused.body>('/v1/graphql', { extensions }, user);
      expect(byHash.body).toEqual(refused.body);
      // Once in the allow-list, the hash alone runs it.
      expect(
        (
          await allowlisted.metadata(
            { type: 'create_query_collection', args: { name: 'c', definition: { queries: [{ name: 'q', query: text }] } } },
            { 'x-engine-admin-secret': 'adm' },
          )
        ).status,
      ).toBe(200);
      expect((await allowlisted.metadata({ type: 'add_collection_to_allowlist', args: { collection: 'c' } }, { 'x-engine-admin-secret': 'adm' })).status).toBe(
        200,
      );
      expect((await allowlisted.post('/v1/graphql', { extensions }, user)).body).toEqual({ data: { book: [{ id: 1 }, { id: 2 }] } });
    } finally {
      await allowlisted.close();
    }
  });
});
