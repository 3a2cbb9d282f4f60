/**
 * The golden cases that hold a `response.json` also run on a real PostgreSQL: the fixture
 * database (test/golden/fixture/schema.sql and data.sql) behind a real engine with the
 * fixture's metadata, the request over HTTP, the answer compared with `response.json`. So the
 * SQL of those goldens is known to run and to give the answer a client expects. A case's
 * `request.json` may add `session` (headers such as `x-engine-user-id`). UPDATE_GOLDEN=1
 * writes missing or different response files; review them.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../support/pg.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
const passing = path.join(here, 'passing');
const fixture = path.join(here, 'fixture');

interface CaseRequest {
  role?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  session?: Record<string, string>;
}

const cases: string[] = [];
for (const area of readdirSync(passing).sort()) {
  if (!statSync(path.join(passing, area)).isDirectory()) continue;
  for (const c of readdirSync(path.join(passing, area)).sort()) if (existsSync(path.join(passing, area, c, 'response.json'))) cases.push(`${area}/${c}`);
}

let db: TestDatabase;
let engine: TestEngine;
const adminSecret = 'golden-secret';

beforeAll(async () => {
  db = await createTestDatabase('goldenr');
  await db.sql(readFileSync(path.join(fixture, 'schema.sql'), 'utf8'));
  await db.sql(readFileSync(path.join(fixture, 'data.sql'), 'utf8'));
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret });
  const doc = JSON.parse(readFileSync(path.join(fixture, 'metadata.json'), 'utf8')) as { sources: Array<{ configuration: unknown }> };
  for (const s of doc.sources) s.configuration = { connection_info: { database_url: db.url } };
  const r = await engine.metadata({ type: 'replace_metadata', args: doc });
  if (r.status !== 200) throw new Error(`replace_metadata: ${r.text}`);
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('golden responses (postgres)', () => {
  it('covers a subset of the golden cases', () => {
    expect(cases.length).toBeGreaterThan(5);
  });

  it.each(cases)('%s', async (c) => {
    const dir = path.join(passing, c);
    const query = readFileSync(path.join(dir, 'query.graphql'), 'utf8');
    const reqFile = path.join(dir, 'request.json');
    const req = existsSync(reqFile) ? (JSON.parse(readFileSync(reqFile, 'utf8')) as CaseRequest) : {};
    const headers: Record<string, string> = { 'x-engine-admin-secret': adminSecret, ...(req.session ?? {}) };
    if (req.role !== undefined) headers['x-engine-role'] = req.role;
    const res = await engine.graphql(query, req.variables ?? {}, headers, req.operationName);
    expect(res.status).toBe(200);
    const actual = `${JSON.stringify(res.body, null, 2)}\n`;
    const file = path.join(dir, 'response.json');
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(file, actual);
    expect(actual).toBe(readFileSync(file, 'utf8'));
  });
});
