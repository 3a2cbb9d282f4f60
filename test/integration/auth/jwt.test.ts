/**
 * JWT mode with real signed tokens (HS256, RS256, ES256) and a real JWK set
 * server with key rotation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { TestDatabase } from '../../support/pg.ts';
import type { TestEngine } from '../../support/engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { ADMIN_SECRET, createProfileDatabase, PROFILE_IDS, startProfileEngine } from '../../support/profile-schema.ts';

const NS = 'https://engine.dev/jwt/claims';
const HS_KEY = 'an-hmac-key-of-at-least-thirty-two-characters';
const claims = (userId: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  'x-engine-allowed-roles': ['user', 'guest'],
  'x-engine-default-role': 'user',
  'x-engine-user-id': userId,
  ...extra,
});

async function hs256(
  payload: JWTPayload,
  opts: { exp?: string | number; nbf?: string | number; aud?: string; iss?: string; key?: string } = {},
): Promise<string> {
  let jwt = new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (opts.exp !== undefined) jwt = jwt.setExpirationTime(opts.exp);
  if (opts.nbf !== undefined) jwt = jwt.setNotBefore(opts.nbf);
  if (opts.aud !== undefined) jwt = jwt.setAudience(opts.aud);
  if (opts.iss !== undefined) jwt = jwt.setIssuer(opts.iss);
  return await jwt.sign(new TextEncoder().encode(opts.key ?? HS_KEY));
}

const bearer = (token: string, extra: Record<string, string> = {}): Record<string, string> => ({ authorization: `Bearer ${token}`, ...extra });

let db: TestDatabase;
const engines: TestEngine[] = [];
const servers: TestServer[] = [];

async function engineWith(jwt: Record<string, unknown>, more: Record<string, unknown> = {}): Promise<TestEngine> {
  const e = await startProfileEngine(db, { jwtSecret: JSON.stringify(jwt), ...more });
  engines.push(e);
  return e;
}

beforeAll(async () => {
  db = await createProfileDatabase();
});

afterAll(async () => {
  for (const e of engines) await e.close();
  for (const s of servers) await s.close();
  await db?.drop();
});

describe('HS256 key', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await engineWith({ type: 'HS256', key: HS_KEY, audience: 'engine-tests', issuer: 'https://issuer.test' }, { unauthorizedRole: 'guest' });
  });

  const good = (userId: string, extra: Record<string, unknown> = {}): Promise<string> =>
    hs256({ [NS]: claims(userId, extra) }, { exp: '5m', aud: 'engine-tests', iss: 'https://issuer.test' });

  it('takes the role and session variables from the token, not from client headers', async () => {
    const res = await engine.graphql(PROFILE_IDS, undefined, bearer(await good('2'), { 'x-engine-user-id': '3' }));
    expect(res.body).toEqual({ data: { profile: [{ id: 2 }] } });
  });

  it('lets X-Engine-Role pick an allowed role and refuses any other', async () => {
    const token = await good('2');
    const guest = await engine.graphql(PROFILE_IDS, undefined, bearer(token, { 'x-engine-role': 'guest' }));
    expect(guest.body).toEqual({ data: { profile: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    const admin = await engine.graphql(PROFILE_IDS, undefined, bearer(token, { 'x-engine-role': 'admin' }));
    // v2 compat: /v1/graphql answers authentication failures with 200 and the code in the body.
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ errors: [{ extensions: { code: 'access-denied' } }] });
  });

  it.each([
    ['expired', () => hs256({ [NS]: claims('1') }, { exp: Math.floor(Date.now() / 1000) - 60, aud: 'engine-tests', iss: 'https://issuer.test' }), /JWTExpired/],
    ['not yet valid', () => hs256({ [NS]: claims('1') }, { exp: '10m', nbf: '5m', aud: 'engine-tests', iss: 'https://issuer.test' }), /JWTNotYetValid/],
    ['wrong audience', () => hs256({ [NS]: claims('1') }, { exp: '5m', aud: 'someone-else', iss: 'https://issuer.test' }), /JWTNotInAudience/],
    ['wrong issuer', () => hs256({ [NS]: claims('1') }, { exp: '5m', aud: 'engine-tests', iss: 'https://evil.test' }), /JWTNotInIssuer/],
    [
      'bad signature',
      () => hs256({ [NS]: claims('1') }, { exp: '5m', aud: 'engine-tests', iss: 'https://issuer.test', key: 'another-hmac-key-of-thirty-two-characters!!' }),
      /JWSInvalidSignature/,
    ],
  ])('refuses a token that is %s with invalid-jwt', async (_name, make, message) => {
    const token = await make();
    const res = await engine.graphql(PROFILE_IDS, undefined, bearer(token));
    // v2 compat: HTTP 200 on /v1/graphql (token-refreshing clients match on the code in the body).
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ errors: [{ message: expect.stringMatching(message), extensions: { code: 'invalid-jwt' } }] });
    // GraphQL over HTTP's media type gets the HTTP status; the metadata API keeps 401 as v2 does.
    const spec = await engine.graphql(PROFILE_IDS, undefined, bearer(token, { accept: 'application/graphql-response+json' }));
    expect(spec.status).toBe(401);
    expect(spec.headers.get('content-type')).toContain('application/graphql-response+json');
    expect(spec.body).toMatchObject({ errors: [{ extensions: { code: 'invalid-jwt' } }] });
    expect((await engine.metadata({ type: 'export_metadata', args: {} }, bearer(token))).status).toBe(401);
  });

  it('refuses alg none', async () => {
    const enc = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ [NS]: claims('1'), aud: 'engine-tests', iss: 'https://issuer.test' })}.`;
    const res = await engine.graphql(PROFILE_IDS, undefined, bearer(token));
    expect(res.body).toMatchObject({ errors: [{ extensions: { code: 'invalid-jwt' } }] });
  });

  it('refuses tokens without usable engine claims with jwt-invalid-claims', async () => {
    const noNs = await hs256({ sub: '1' }, { exp: '5m', aud: 'engine-tests', iss: 'https://issuer.test' });
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(noNs))).body).toMatchObject({ errors: [{ extensions: { code: 'jwt-invalid-claims' } }] });
    const noRoles = await hs256({ [NS]: { 'x-engine-default-role': 'user' } }, { exp: '5m', aud: 'engine-tests', iss: 'https://issuer.test' });
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(noRoles))).body).toMatchObject({ errors: [{ extensions: { code: 'jwt-invalid-claims' } }] });
  });

  it('serves requests without a token with the unauthorized role', async () => {
    const res = await engine.graphql(PROFILE_IDS, undefined, {});
    expect(res.body).toEqual({ data: { profile: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
  });

  it('skips JWT when the admin secret is given', async () => {
    const res = await engine.graphql('{ profile(order_by: {id: asc}) { name } }', undefined, {
      'x-engine-admin-secret': ADMIN_SECRET,
      authorization: 'Bearer garbage',
    });
    expect(res.body).toEqual({ data: { profile: [{ name: 'one' }, { name: 'two' }, { name: 'three' }] } });
  });

  it('keeps the metadata API admin-only for token roles', async () => {
    const res = await engine.metadata({ type: 'export_metadata', args: {} }, bearer(await good('1')));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'access-denied' });
  });
});

describe('claims options and the cookie header', () => {
  it('reads claims at claims_namespace_path, stringified', async () => {
    const engine = await engineWith({ type: 'HS256', key: HS_KEY, claims_namespace_path: '$.app.engine', claims_format: 'stringified_json' });
    const token = await hs256({ app: { engine: JSON.stringify(claims('3')) } }, { exp: '5m' });
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(token))).body).toEqual({ data: { profile: [{ id: 3 }] } });
  });

  it('maps claims with claims_map paths, defaults and literals', async () => {
    const engine = await engineWith({
      type: 'HS256',
      key: HS_KEY,
      claims_map: {
        'x-engine-allowed-roles': { path: '$.roles' },
        'x-engine-default-role': { path: '$.primary_role', default: 'user' },
        'x-engine-user-id': { path: '$.sub' },
        'x-engine-org': 'acme',
      },
    });
    const token = await hs256({ roles: ['user'], sub: '1' }, { exp: '5m' });
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(token))).body).toEqual({ data: { profile: [{ id: 1 }] } });
  });

  it('reads the token from a named cookie', async () => {
    const engine = await engineWith({ type: 'HS256', key: HS_KEY, header: { type: 'Cookie', name: 'session' } });
    const token = await hs256({ [NS]: claims('2') }, { exp: '5m' });
    const res = await engine.graphql(PROFILE_IDS, undefined, { cookie: `theme=dark; session=${token}` });
    expect(res.body).toEqual({ data: { profile: [{ id: 2 }] } });
    const refused = await engine.graphql(PROFILE_IDS, undefined, bearer(token));
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ errors: [{ extensions: { code: 'access-denied' } }] });
  });
});

describe('asymmetric keys', () => {
  it('verifies RS256 with a PEM key and refuses HS256 tokens signed with that PEM (algorithm confusion)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const pem = await exportSPKI(publicKey);
    const engine = await engineWith({ type: 'RS256', key: pem });
    const token = await new SignJWT({ [NS]: claims('1') }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(privateKey);
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(token))).body).toEqual({ data: { profile: [{ id: 1 }] } });
    const confused = await hs256({ [NS]: claims('1') }, { exp: '5m', key: pem });
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(confused))).body).toMatchObject({ errors: [{ extensions: { code: 'invalid-jwt' } }] });
  });

  it('verifies ES256 with a JWK key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const engine = await engineWith({ type: 'ES256', key: JSON.stringify(await exportJWK(publicKey)) });
    const token = await new SignJWT({ [NS]: claims('3') }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('5m').sign(privateKey);
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(token))).body).toEqual({ data: { profile: [{ id: 3 }] } });
  });
});

describe('jwk_url', () => {
  it('fetches the JWK set, follows key rotation, and drops old keys when the cache expires', async () => {
    const key1 = await generateKeyPair('RS256');
    const key2 = await generateKeyPair('RS256');
    const jwk = async (k: CryptoKey, kid: string): Promise<Record<string, unknown>> => ({ ...(await exportJWK(k)), kid, alg: 'RS256', use: 'sig' });
    let keys = [await jwk(key1.publicKey, 'k1')];
    const server = await startTestServer((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=1' });
      res.end(JSON.stringify({ keys }));
    });
    servers.push(server);
    const engine = await engineWith({ jwk_url: server.url });
    const sign = (k: CryptoKey, kid: string): Promise<string> =>
      new SignJWT({ [NS]: claims('2') }).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('5m').sign(k);

    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(await sign(key1.privateKey, 'k1')))).body).toEqual({ data: { profile: [{ id: 2 }] } });
    keys = [await jwk(key2.publicKey, 'k2')];
    // A token with an unknown kid makes the engine refetch (at most once a second).
    await new Promise((r) => setTimeout(r, 1100));
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(await sign(key2.privateKey, 'k2')))).body).toEqual({ data: { profile: [{ id: 2 }] } });
    await new Promise((r) => setTimeout(r, 1100));
    const old = await engine.graphql(PROFILE_IDS, undefined, bearer(await sign(key1.privateKey, 'k1')));
    expect(old.body).toMatchObject({ errors: [{ extensions: { code: 'invalid-jwt' } }] });
    // HMAC tokens are never accepted against a JWK set.
    const hmac = await hs256({ [NS]: claims('2') }, { exp: '5m' });
    expect((await engine.graphql(PROFILE_IDS, undefined, bearer(hmac))).body).toMatchObject({ errors: [{ extensions: { code: 'invalid-jwt' } }] });
  });
});

describe('configuration', () => {
  it('refuses a bad JWT configuration at start-up', async () => {
    await expect(startProfileEngine(db, { jwtSecret: '{"type":"HS256"}' })).rejects.toThrow(/exactly one of "key" or "jwk_url"/);
    await expect(startProfileEngine(db, { jwtSecret: 'not json' })).rejects.toThrow(/not valid JSON/);
  });
});
