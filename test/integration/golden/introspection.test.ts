/**
 * test/golden/fixture/introspection.json is the introspection of schema.sql on a real
 * PostgreSQL: this test makes that database, introspects it as the engine does, and compares.
 * With UPDATE_GOLDEN=1 it rewrites the file instead (after a change to schema.sql or to the
 * introspection), then review the diff and the golden SQL it changes.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchEnumTableRows, introspectPostgres } from '../../../engine/backends/postgres/introspect.ts';
import type { EnumTableRows } from '../../../engine/backends/introspection.ts';
import { record } from '../../support/recorded-catalog.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

const fixture = new URL('../../golden/fixture/', import.meta.url);
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('golden');
  await db.sql(readFileSync(new URL('schema.sql', fixture), 'utf8'));
});

afterAll(async () => {
  await db?.drop();
});

describe('golden fixture introspection', () => {
  it('is the recorded one', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    let actual: string;
    try {
      const introspection = await introspectPostgres(client);
      const [colors] = await fetchEnumTableRows(client, [{ table: { schema: 'public', name: 'colors' }, valueColumn: 'value', commentColumn: 'comment' }]);
      if (colors === undefined || colors instanceof Error) throw colors ?? new Error('no enum rows');
      actual = `${JSON.stringify(record(introspection, new Map<string, EnumTableRows>([['public.colors', colors]])), null, 2)}\n`;
    } finally {
      await client.end();
    }
    const file = new URL('introspection.json', fixture);
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(file, actual);
    else if (!existsSync(file)) expect.fail('test/golden/fixture/introspection.json is missing: run UPDATE_GOLDEN=1 npx vitest run test/integration/golden');
    expect(actual).toBe(readFileSync(file, 'utf8'));
  });
});
