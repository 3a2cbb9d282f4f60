/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Shared set-up of the permission tests: users, orgs, docs (with jsonb, text
 * and integer columns, relationships both ways) and an unrelated flags table,
 * tracked through /v1/metadata; helpers to install permissions per role and
 * to query as a role.
 */
import type { HttpResult, TestEngine } from './engine.ts';
import type { TestDatabase } from './pg.ts';
import { startSeededEngine } from './seeded-engine.ts';
import type { Settings } from '../../engine/cli/settings.ts';

/** The permission test schema and rows. */
export const PERMISSION_SCHEMA = `
CREATE TABLE orgs (id int PRIMARY KEY, name text NOT NULL, secret text);
CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL, email text, org_id int REFERENCES orgs(id));
CREATE TABLE docs (
  id serial PRIMARY KEY,
  owner_id int REFERENCES users(id),
  title text NOT NULL,
  body text,
  status text NOT NULL DEFAULT 'draft',
  score int,
  meta jsonb,
  created_by int,
  approved_by int
);
CREATE TABLE flags (name text PRIMARY KEY, enabled boolean NOT NULL);
INSERT INTO orgs VALUES (1, 'Acme', 's1'), (2, 'Globex', 's2');
INSERT INTO users VALUES (1, 'Ann', 'ann@a.io', 1), (2, 'Bob', NULL, 1), (3, 'Cid', 'cid@g.io', 2);
INSERT INTO docs (owner_id, title, body, status, score, meta, created_by, approved_by) VALUES
  (1, 'Alpha', 'a body', 'published', 9, '{"a": 1, "lang": "en"}', 1, 1),
  (1, 'beta', 'b body', 'draft', 3, '{"b": 2}', 1, 2),
  (2, 'Gamma', NULL, 'published', 5, '{"a": 3, "b": 4}', 2, 1),
  (3, 'delta', 'd body', 'archived', NULL, NULL, 3, 3),
  (3, 'Epsilon', 'e body', 'published', 7, '{"lang": "fr"}', 3, NULL),
  (NULL, 'Zeta', 'z body', 'draft', 1, '{}', NULL, NULL);
INSERT INTO flags VALUES ('open', true), ('closed', false);
`;

/** Tracks every table with `owner` (docs → users), `org` (users → orgs) and the array relationships back. */
export const TRACK_PERMISSION_SCHEMA = {
  type: 'bulk',
  args: [
    ...['orgs', 'users', 'docs', 'flags'].map((name) => ({ type: 'pg_track_table', args: { table: name } })),
    { type: 'pg_create_object_relationship', args: { table: 'docs', name: 'owner', using: { foreign_key_constraint_on: 'owner_id' } } },
    { type: 'pg_create_object_relationship', args: { table: 'users', name: 'org', using: { foreign_key_constraint_on: 'org_id' } } },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'users', name: 'docs', using: { foreign_key_constraint_on: { table: 'docs', columns: ['owner_id'] } } },
    },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'orgs', name: 'users', using: { foreign_key_constraint_on: { table: 'users', columns: ['org_id'] } } },
    },
  ],
};

/** A running engine over a fresh database with the permission schema tracked. */
export interface PermissionFixture {
  readonly db: TestDatabase;
  readonly engine: TestEngine;
  /** POST /v1/metadata `{type, args}`. */
  md(type: string, args?: unknown, extra?: Record<string, unknown>): Promise<HttpResult<any>>;
  /** POST /v1/graphql as `role` with session variables `vars` (admin when role is undefined). */
  as(role: string | undefined, query: string, vars?: Record<string, string>, variables?: Record<string, unknown>): Promise<any>;
  /** Replaces the permissions of the tracked tables: `perms[table][kind]` is a list of `{role, permission}`. */
  setPermissions(perms: Record<string, Record<string, unknown[]>>, inheritedRoles?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fixture (optionally with extra SQL after the schema, and engine settings). */
export async function startPermissionFixture(extraSql = '', settings: Partial<Settings> = {}): Promise<PermissionFixture> {
  const { db, engine, close } = await startSeededEngine({ prefix: 'perm', sql: PERMISSION_SCHEMA + extraSql, settings, track: TRACK_PERMISSION_SCHEMA });
  const md = (type: string, args: unknown = {}, extra: Record<string, unknown> = {}): Promise<HttpResult<any>> => engine.metadata({ type, args, ...extra });
  return {
    db,
    engine,
    md,
    async as(role, query, vars = {}, variables) {
      const headers = role === undefined ? undefined : { 'x-engine-role': role, ...vars };
      return (await engine.graphql(query, variables, headers)).body;
    },
    async setPermissions(perms, inheritedRoles = []) {
      const doc = (await md('export_metadata')).body;
      for (const t of doc.sources[0].tables) {
        for (const kind of ['select', 'insert', 'update', 'delete']) {
          const list = perms[t.table.name]?.[kind];
          if (list === undefined) delete t[`${kind}_permissions`];
          else t[`${kind}_permissions`] = list;
        }
      }
      doc.inherited_roles = inheritedRoles;
      const res = await md('replace_metadata', doc);
      if (res.status !== 200) throw new Error(`replace_metadata failed: ${res.text}`);
    },
    close,
  };
}
