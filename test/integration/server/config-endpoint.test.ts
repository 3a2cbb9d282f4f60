/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `GET /v1alpha1/config` as v2 serves it (Hasura.Server.App, runGetConfig):
 * admins only, v2's ServerConfig fields from the engine's settings. Real
 * engines over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

const SECRET = 'config-secret';
let db: TestDatabase;
let secured: TestEngine;
let open: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('config_ep');
  secured = await startTestEngine({
    databaseUrl: db.url,
    adminSecret: SECRET,
    jwtSecret: JSON.stringify({ type: 'HS256', key: 'k'.repeat(32), claims_namespace_path: '$.engine.claims', claims_format: 'stringified_json' }),
    enableRemoteSchemaPermissions: true,
    enableAllowlist: true,
    inferFunctionPermissions: false,
    liveQueriesMultiplexedBatchSize: 50,
    liveQueriesMultiplexedRefetchInterval: 2500,
  });
  open = await startTestEngine({ databaseUrl: db.url });
}, 60_000);

afterAll(async () => {
  await secured?.close();
  await open?.close();
  await db?.drop();
});

describe('GET /v1alpha1/config', () => {
  it("answers v2's ServerConfig to an admin, from the engine's settings", async () => {
    const r = await secured.get('/v1alpha1/config', { 'x-engine-admin-secret': SECRET });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      is_function_permissions_inferred: false,
      is_remote_schema_permissions_enabled: true,
      is_admin_secret_set: true,
      is_auth_hook_set: false,
      is_jwt_set: true,
      jwt: [{ claims_namespace: '$.engine.claims', claims_format: 'stringified_json' }],
      is_allow_list_enabled: true,
      live_queries: { batch_size: 50, refetch_delay: 2.5 },
      streaming_queries: { batch_size: 100, refetch_delay: 1 },
      console_assets_dir: null,
      experimental_features: ['naming_convention', 'streaming_subscriptions'],
      is_prometheus_metrics_enabled: expect.any(Boolean),
      default_naming_convention: 'hasura-default',
    });
    // v2's field order, which v2 clients print as is.
    expect(Object.keys(r.body as object)).toEqual([
      'version',
      'is_function_permissions_inferred',
      'is_remote_schema_permissions_enabled',
      'is_admin_secret_set',
      'is_auth_hook_set',
      'is_jwt_set',
      'jwt',
      'is_allow_list_enabled',
      'live_queries',
      'streaming_queries',
      'console_assets_dir',
      'experimental_features',
      'is_prometheus_metrics_enabled',
      'default_naming_convention',
    ]);
    // v2's header name for the admin secret works too.
    expect((await secured.get('/v1alpha1/config', { 'x-hasura-admin-secret': SECRET })).status).toBe(200);
  });

  it('defaults: no secret, no JWT, v2 defaults', async () => {
    const r = await open.get('/v1alpha1/config', {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      is_function_permissions_inferred: true,
      is_remote_schema_permissions_enabled: false,
      is_admin_secret_set: false,
      is_auth_hook_set: false,
      is_jwt_set: false,
      jwt: [],
      is_allow_list_enabled: false,
      live_queries: { batch_size: 100, refetch_delay: 1 },
    });
  });

  it('refuses non-admins as v2 does, and a wrong admin secret with 401', async () => {
    const user = await open.get('/v1alpha1/config', { 'x-engine-role': 'user' });
    expect(user.status).toBe(400);
    expect(user.body).toEqual({ path: '$', error: 'You have to be an admin to access this endpoint', code: 'access-denied' });
    const wrong = await secured.get('/v1alpha1/config', { 'x-engine-admin-secret': 'nope' });
    expect(wrong.status).toBe(401);
    expect((wrong.body as any).code).toBe('access-denied');
    const none = await secured.get('/v1alpha1/config', {});
    expect([400, 401]).toContain(none.status);
    expect((none.body as any).code).toBe('access-denied');
    // Only GET, as v2.
    expect((await open.post('/v1alpha1/config', {}, {})).status).toBe(405);
  });
});
