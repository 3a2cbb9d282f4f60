/**
 * A fresh database per caller on the run's shared PostgreSQL server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** A database made for one test file, with its URL and a client to seed it. */
export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  /** Runs SQL on the test database (one-off connection). */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** Drops the database. */
  drop(): Promise<void>;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Creates an empty database with a random name (on the run's server, or on the one `adminUrl` names). */
export async function createTestDatabase(prefix = 't', adminUrl: string = inject('pgAdminUrl')): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  return {
    url,
    name,
    async sql(text, values) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return await c.query(text, values);
      } finally {
        await c.end();
      }
    },
    async drop() {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
