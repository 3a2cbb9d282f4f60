/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Shared set-up of the GraphQL read tests: a database with related tables of
 * every column family, tracked through /v1/metadata, and an engine over it.
 */
import type { HttpResult, TestEngine } from './engine.ts';
import type { TestDatabase } from './pg.ts';
import { startSeededEngine } from './seeded-engine.ts';
import type { Settings } from '../../engine/cli/settings.ts';

/** Tables: authors ← articles → tags (array), an enum table, jsonb, arrays, numeric, timestamps, another schema, a view. */
export const READ_SCHEMA = `
CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL, rating numeric, born date, active boolean NOT NULL DEFAULT true, uid uuid, followers bigint, score float8);
CREATE TABLE article_status (value text PRIMARY KEY, comment text);
INSERT INTO article_status VALUES ('draft', 'not yet'), ('published', 'out');
CREATE TABLE articles (
  id serial PRIMARY KEY,
  title text NOT NULL,
  author_id integer REFERENCES authors(id),
  status text REFERENCES article_status(value),
  meta jsonb,
  tags text[],
  published_at timestamptz,
  words int4
);
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE TABLE comments (id serial PRIMARY KEY, article_id integer NOT NULL REFERENCES articles(id), body text NOT NULL, mood mood);
CREATE SCHEMA shop;
CREATE TABLE shop.orders (id bigserial PRIMARY KEY, total numeric, placed_at timestamp);
CREATE VIEW author_stats AS SELECT a.id, a.name, count(ar.id)::int AS articles FROM authors a LEFT JOIN articles ar ON ar.author_id = a.id GROUP BY a.id, a.name;
INSERT INTO authors (name, rating, born, active, uid, followers, score) VALUES
  ('Ann', 4.5, '1980-01-02', true, '11111111-1111-1111-1111-111111111111', 9007199254740993, 1.5),
  ('Bob', 3.25, '1990-06-30', false, '22222222-2222-2222-2222-222222222222', 10, 2.25),
  ('Cid', NULL, NULL, true, NULL, NULL, NULL);
INSERT INTO articles (title, author_id, status, meta, tags, published_at, words) VALUES
  ('Hello World', 1, 'published', '{"lang": "en", "n": 1}', '{a,b}', '2020-01-01T10:00:00Z', 100),
  ('Second Post', 1, 'draft', '{"lang": "fr"}', '{b}', '2021-05-05T10:00:00Z', 250),
  ('Bob Writes', 2, 'published', '{"lang": "en", "x": {"y": 2}}', '{c}', NULL, 50),
  ('Orphan', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO comments (article_id, body, mood) VALUES (1, 'nice', 'happy'), (1, 'meh', 'sad'), (2, 'ok', NULL), (3, 'wow', 'happy');
INSERT INTO shop.orders (total, placed_at) VALUES (10.5, '2020-01-01 00:00'), (99.99, '2022-02-02 12:00');
`;

/** The metadata calls that track READ_SCHEMA. */
export const TRACK = {
  type: 'bulk',
  args: [
    ...['authors', 'articles', 'comments'].map((name) => ({ type: 'pg_track_table', args: { table: { schema: 'public', name } } })),
    { type: 'pg_track_table', args: { table: { schema: 'public', name: 'article_status' }, is_enum: true } },
    { type: 'pg_track_table', args: { table: { schema: 'shop', name: 'orders' } } },
    {
      type: 'pg_track_table',
      args: {
        table: { schema: 'public', name: 'author_stats' },
        configuration: { custom_name: 'stats', custom_root_fields: { select: 'allStats' }, custom_column_names: { articles: 'articleCount' } },
      },
    },
    { type: 'pg_create_object_relationship', args: { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'authors', name: 'articles', using: { foreign_key_constraint_on: { table: 'articles', column: 'author_id' } } },
    },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'articles', name: 'comments', using: { foreign_key_constraint_on: { table: 'comments', column: 'article_id' } } },
    },
    { type: 'pg_create_object_relationship', args: { table: 'comments', name: 'article', using: { foreign_key_constraint_on: 'article_id' } } },
  ],
};

/** A running engine over a fresh database with READ_SCHEMA tracked. */
export interface ReadFixture {
  readonly db: TestDatabase;
  readonly engine: TestEngine;
  /** POST /v1/graphql as admin (or with `headers`); returns the parsed body. */
  gql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any>;
  /** POST /v1/metadata. */
  md(body: unknown): Promise<HttpResult<any>>;
  close(): Promise<void>;
}

/** Starts the fixture; `settings` are passed to the engine. */
export async function startReadFixture(settings: Partial<Settings> = {}, schema = READ_SCHEMA, track: unknown = TRACK): Promise<ReadFixture> {
  const { db, engine, close } = await startSeededEngine({ prefix: 'gql', sql: schema, settings, track });
  return {
    db,
    engine,
    md: (body) => engine.metadata(body),
    async gql(query, variables, headers) {
      return (await engine.graphql(query, variables, headers)).body;
    },
    close,
  };
}
