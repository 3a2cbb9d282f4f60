/**
 * CORS from ENGINE_GRAPHQL_CORS_DOMAIN, through real preflight requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { buildOriginMatcher } from '../../../engine/server/cors.ts';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('cors');
  engine = await startTestEngine({ databaseUrl: db.url, corsDomain: 'https://*.example.com, http://localhost:*, https://app.test' });
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

async function preflight(origin: string): Promise<Response> {
  return await fetch(`${engine.url}/v1/graphql`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-engine-role' },
  });
}

describe('CORS', () => {
  it('allows listed origins, sub-domain and port wildcards', async () => {
    for (const origin of ['https://a.example.com', 'https://a.b.example.com', 'http://localhost:3000', 'https://app.test']) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    }
  });

  it('refuses other origins', async () => {
    for (const origin of ['https://example.com.evil.test', 'https://evil.test', 'http://localhost', 'http://app.test']) {
      const res = await preflight(origin);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('allows every origin when unset or *', () => {
    expect(buildOriginMatcher(null)('https://anything.test')).toBe(true);
    expect(buildOriginMatcher('*')('http://x')).toBe(true);
  });
});
