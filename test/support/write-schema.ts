/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Shared set-up of the mutation tests: authors → articles → comments (array
 * relationships both ways with object relationships back), a table with a
 * natural text key and a unique constraint, a column of every common type,
 * custom column names, an updatable and a read-only view, tracked through
 * /v1/metadata, and an engine over them.
 */
import type { HttpResult, TestEngine } from './engine.ts';
import type { TestDatabase } from './pg.ts';
import { startSeededEngine } from './seeded-engine.ts';
import type { Settings } from '../../engine/cli/settings.ts';

/** The tables. */
export const WRITE_SCHEMA = `
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE TABLE authors (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text UNIQUE,
  rating numeric CHECK (rating >= 0),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT '2000-01-01T00:00:00Z',
  uid uuid,
  followers bigint,
  score float8,
  small int2,
  born date,
  wakes time,
  seen timestamp,
  meta jsonb,
  doc json,
  tags text[],
  nums int4[],
  mood mood
);
CREATE TABLE articles (
  id serial PRIMARY KEY,
  title text NOT NULL,
  author_id integer REFERENCES authors(id),
  status text NOT NULL DEFAULT 'draft',
  words int4 DEFAULT 0,
  meta jsonb
);
CREATE TABLE comments (id serial PRIMARY KEY, article_id integer NOT NULL REFERENCES articles(id), body text NOT NULL, likes int NOT NULL DEFAULT 0);
CREATE TABLE labels (slug text PRIMARY KEY, title text NOT NULL, code int UNIQUE, uses int NOT NULL DEFAULT 0);
CREATE TABLE renamed (id serial PRIMARY KEY, first_name text, last_name text);
CREATE VIEW author_names AS SELECT id, name FROM authors;
CREATE VIEW author_counts AS SELECT author_id, count(*) AS n FROM articles GROUP BY author_id;
`;

/** The metadata calls that track WRITE_SCHEMA. */
export const TRACK_WRITES = {
  type: 'bulk',
  args: [
    ...['authors', 'articles', 'comments', 'labels', 'author_names', 'author_counts'].map((name) => ({
      type: 'pg_track_table',
      args: { table: { schema: 'public', name } },
    })),
    {
      type: 'pg_track_table',
      args: { table: { schema: 'public', name: 'renamed' }, configuration: { custom_column_names: { first_name: 'firstName', last_name: 'lastName' } } },
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

/** A running engine over a fresh database with WRITE_SCHEMA tracked. */
export interface WriteFixture {
  readonly db: TestDatabase;
  readonly engine: TestEngine;
  /** POST /v1/graphql as admin (or with `headers`); returns the parsed body. */
  gql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any>;
  /** POST /v1/metadata. */
  md(body: unknown): Promise<HttpResult<any>>;
  /** Rows of a SQL query, straight from the database. */
  rows(sql: string): Promise<any[]>;
  close(): Promise<void>;
}

/** Starts the fixture; `settings(db)` may override engine settings (the database URL through a proxy, say). */
export async function startWriteFixture(settings: (db: TestDatabase) => Promise<Partial<Settings>> = async () => ({})): Promise<WriteFixture> {
  const { db, engine, close } = await startSeededEngine({ prefix: 'mut', sql: WRITE_SCHEMA, settings, track: TRACK_WRITES });
  return {
    db,
    engine,
    md: (body) => engine.metadata(body),
    async gql(query, variables, headers) {
      return (await engine.graphql(query, variables, headers)).body;
    },
    async rows(sql) {
      return (await db.sql(sql)).rows;
    },
    close,
  };
}
