/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Shared set-up of the metadata integration tests: a fresh database with a
 * small schema, an engine over it, and short-hands for metadata calls.
 */
import type { HttpResult, TestEngine } from './engine.ts';
import type { TestDatabase } from './pg.ts';
import { startSeededEngine } from './seeded-engine.ts';

/** A small schema: authors, articles (FK to authors), tags, an enum table, a view. */
export const BASE_SCHEMA = `
CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL, bio text);
COMMENT ON TABLE authors IS 'people who write';
CREATE TABLE articles (
  id serial PRIMARY KEY,
  title text NOT NULL,
  author_id integer NOT NULL REFERENCES authors(id),
  editor_id integer REFERENCES authors(id),
  status text
);
CREATE TABLE article_status (value text PRIMARY KEY, comment text);
INSERT INTO article_status VALUES ('draft', 'not yet'), ('published', 'out');
ALTER TABLE articles ADD CONSTRAINT articles_status_fkey FOREIGN KEY (status) REFERENCES article_status(value);
CREATE TABLE profiles (author_id integer PRIMARY KEY REFERENCES authors(id), website text);
CREATE SCHEMA shop;
CREATE TABLE shop.orders (id bigserial PRIMARY KEY, total numeric, tags text[]);
CREATE VIEW author_names AS SELECT id, name FROM authors;
INSERT INTO authors (name) VALUES ('Ann'), ('Bob');
INSERT INTO articles (title, author_id, status) VALUES ('Hello', 1, 'draft'), ('World', 2, 'published');
`;

/** A test database with {@link BASE_SCHEMA} and an engine over it. */
export interface MetadataFixture {
  readonly db: TestDatabase;
  readonly engine: TestEngine;
  /** POST /v1/metadata. */
  md<T = any>(type: string, args?: unknown, extra?: Record<string, unknown>): Promise<HttpResult<T>>;
  /** POST /v1/query. */
  q1<T = any>(type: string, args?: unknown, extra?: Record<string, unknown>): Promise<HttpResult<T>>;
  /** POST /v2/query run_sql. */
  sql<T = any>(sql: string, extra?: Record<string, unknown>): Promise<HttpResult<T>>;
  /** export_metadata (v1). */
  exported(): Promise<any>;
  close(): Promise<void>;
}

/** Creates the database, loads `schema` and starts an engine with it as the `default` source. */
export async function startFixture(schema = BASE_SCHEMA): Promise<MetadataFixture> {
  const { db, engine, close } = await startSeededEngine({ prefix: 'md', sql: schema });
  const md = <T>(type: string, args: unknown = {}, extra: Record<string, unknown> = {}): Promise<HttpResult<T>> => engine.metadata<T>({ type, args, ...extra });
  return {
    db,
    engine,
    md,
    q1: (type, args = {}, extra = {}) => engine.post('/v1/query', { type, args, ...extra }),
    sql: (sql, extra = {}) => engine.post('/v2/query', { type: 'run_sql', args: { sql, ...extra } }),
    async exported() {
      return (await md('export_metadata')).body;
    },
    close,
  };
}
