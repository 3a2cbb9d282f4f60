/**
 * JWT mode: verify the token with jose and turn its engine claims into a
 * session. Session variables come only from the token, never from client
 * headers; `X-Engine-Role` may only pick one of the allowed roles.
 */
import {
  decodeProtectedHeader,
  errors as joseErrors,
  importJWK,
  importSPKI,
  importX509,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyGetKey,
  type KeyObject,
} from 'jose';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';
import { canonicalNames, Header } from './headers.ts';
import type { JwtConfig } from './jwt-config.ts';
import { readJsonPath } from './json-path.ts';
import { RemoteJwks } from './jwks.ts';
import { buildSession, type Session } from './session.ts';
import type { RequestHeaders } from './resolve-session.ts';

const ALLOWED_ROLES = 'x-engine-allowed-roles';
const DEFAULT_ROLE = 'x-engine-default-role';
/** With a JWK set and no `type`, only asymmetric algorithms: an HMAC "key" made from a public key is the classic confusion attack. */
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

type VerifyKey = CryptoKey | KeyObject | Uint8Array;

function invalidJwt(message: string): EngineError {
  return new EngineError(ErrorCode.InvalidJwt, `Could not verify JWT: ${message}`, { status: 401 });
}

function invalidClaims(message: string): EngineError {
  return new EngineError(ErrorCode.JwtInvalidClaims, message, { status: 401 });
}

async function importStaticKey(config: JwtConfig): Promise<VerifyKey> {
  const alg = config.algorithm ?? '';
  const key = config.key ?? '';
  if (alg.startsWith('HS')) return new TextEncoder().encode(key);
  const trimmed = key.trim();
  if (trimmed.startsWith('{')) return await importJWK(JSON.parse(trimmed) as Parameters<typeof importJWK>[0], alg);
  if (trimmed.includes('BEGIN CERTIFICATE')) return await importX509(trimmed, alg);
  return await importSPKI(trimmed, alg);
}

/** Verifies tokens and builds sessions from them. */
export class JwtAuthenticator {
  readonly #config: JwtConfig;
  readonly #staticKey: VerifyKey | null;
  readonly #jwks: RemoteJwks | null;

  private constructor(config: JwtConfig, staticKey: VerifyKey | null, jwks: RemoteJwks | null) {
    this.#config = config;
    this.#staticKey = staticKey;
    this.#jwks = jwks;
  }

  /** Imports the key or fetches the JWK set; a bad key is an invalid-configuration error at start-up. */
  static async create(config: JwtConfig, logger: Logger): Promise<JwtAuthenticator> {
    if (config.jwkUrl !== null) {
      const jwks = new RemoteJwks(config.jwkUrl, logger);
      try {
        await jwks.refresh();
      } catch (e) {
        // v2 compat: start anyway; the set is fetched again on the first token.
        logger.log('jwk-refresh-log', 'error', { message: 'JWK set fetch failed at start-up', url: config.jwkUrl, http_error: e });
      }
      return new JwtAuthenticator(config, null, jwks);
    }
    try {
      return new JwtAuthenticator(config, await importStaticKey(config), null);
    } catch (e) {
      throw new EngineError(
        ErrorCode.InvalidConfiguration,
        `ENGINE_GRAPHQL_JWT_SECRET: the key cannot be used with ${config.algorithm ?? '?'}: ${(e as Error).message}`,
      );
    }
  }

  /** True when tokens come from a cookie (JWT `header: {type: "Cookie"}`), which browsers send on their own. */
  get readsCookie(): boolean {
    return this.#config.header.type === 'Cookie';
  }

  /** The token of a request, or null when it carries none. */
  tokenOf(headers: RequestHeaders): string | null {
    const h = this.#config.header;
    if (h.type === 'Authorization') {
      const raw = headers['authorization'];
      const value = Array.isArray(raw) ? raw[0] : raw;
      if (value === undefined) return null;
      const m = /^Bearer\s+(.+)$/i.exec(value.trim());
      if (m?.[1] === undefined) throw invalidJwt('the Authorization header must be "Bearer <token>"');
      return m[1];
    }
    const raw = headers['cookie'];
    const value = Array.isArray(raw) ? raw.join('; ') : raw;
    if (value === undefined) return null;
    for (const part of value.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === h.name) return decodeURIComponent(part.slice(eq + 1).trim());
    }
    return null;
  }

  async #verify(token: string): Promise<JWTPayload> {
    const c = this.#config;
    const options = {
      algorithms: c.algorithm !== null ? [c.algorithm === 'Ed25519' ? 'EdDSA' : c.algorithm, ...(c.algorithm === 'Ed25519' ? ['Ed25519'] : [])] : ASYMMETRIC,
      clockTolerance: c.allowedSkewSeconds,
      ...(c.audience !== null ? { audience: [...c.audience] } : {}),
      ...(c.issuer !== null ? { issuer: c.issuer } : {}),
    };
    try {
      if (this.#jwks !== null) {
        let kid: string | undefined;
        try {
          kid = decodeProtectedHeader(token).kid;
        } catch {
          throw invalidJwt('the token is malformed');
        }
        const getKey: JWTVerifyGetKey = await this.#jwks.resolver(kid);
        return (await jwtVerify(token, getKey, options)).payload;
      }
      return (await jwtVerify(token, this.#staticKey as VerifyKey, options)).payload;
    } catch (e) {
      if (e instanceof EngineError) throw e;
      if (e instanceof joseErrors.JWTExpired) throw invalidJwt('JWTExpired');
      if (e instanceof joseErrors.JWTClaimValidationFailed) {
        if (e.claim === 'aud') throw invalidJwt('JWTNotInAudience');
        if (e.claim === 'iss') throw invalidJwt('JWTNotInIssuer');
        if (e.claim === 'nbf') throw invalidJwt('JWTNotYetValid');
        throw invalidJwt(`invalid claim "${e.claim}"`);
      }
      if (e instanceof joseErrors.JWSSignatureVerificationFailed) throw invalidJwt('JWSInvalidSignature');
      if (e instanceof joseErrors.JOSEAlgNotAllowed) throw invalidJwt("the token's algorithm is not allowed");
      if (e instanceof joseErrors.JWKSNoMatchingKey) throw invalidJwt('no key of the JWK set matches the token');
      throw invalidJwt((e as Error).message);
    }
  }

  /** The engine claims of a verified payload, as session variables (lower-cased names). */
  #claimsOf(payload: JWTPayload): Record<string, unknown> {
    const c = this.#config;
    if (c.claimsMap !== null) {
      const out: Record<string, unknown> = {};
      for (const [name, m] of c.claimsMap) {
        const v = m.kind === 'literal' ? m.value : (readJsonPath(payload, m.path) ?? m.default);
        if (v === undefined) throw invalidClaims(`claims_map: no value for "${name}" in the token`);
        out[name] = v;
      }
      return out;
    }
    // With no namespace configured, a token made for v2 (claims under v2's namespace) is read too; the engine's wins.
    let claims = readJsonPath(payload, c.claimsPath) ?? (c.claimsFallbackPath !== null ? readJsonPath(payload, c.claimsFallbackPath) : undefined);
    if (claims === undefined) throw invalidClaims("claims key: '" + c.claimsPath.join('.') + "' not found");
    if (c.claimsFormat === 'stringified_json') {
      if (typeof claims !== 'string') throw invalidClaims('the claims must be a JSON string (claims_format stringified_json)');
      try {
        claims = JSON.parse(claims) as unknown;
      } catch {
        throw invalidClaims('the claims are not valid stringified JSON');
      }
    }
    if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw invalidClaims('the claims must be a JSON object');
    // x-hasura-allowed-roles and the other v2 claim names count as x-engine-* (Note [v2 session names]).
    return canonicalNames(claims as Record<string, unknown>);
  }

  /** Verifies `token` and builds the session; `requestedRole` is the X-Engine-Role header, if any. */
  async session(token: string, requestedRole: string | undefined): Promise<Session> {
    const payload = await this.#verify(token);
    const claims = this.#claimsOf(payload);
    const allowed = claims[ALLOWED_ROLES];
    if (!Array.isArray(allowed) || allowed.length === 0 || !allowed.every((r) => typeof r === 'string')) {
      throw invalidClaims(`${ALLOWED_ROLES} should be a non-empty list of strings`);
    }
    const defaultRole = claims[DEFAULT_ROLE];
    if (typeof defaultRole !== 'string') throw invalidClaims(`${DEFAULT_ROLE} should be a string`);
    const role = requestedRole ?? defaultRole;
    if (!(allowed as string[]).includes(role)) {
      throw new EngineError(ErrorCode.AccessDenied, 'Your requested role is not in allowed roles', { status: 401 });
    }
    const vars: Record<string, string> = {};
    for (const [k, v] of Object.entries(claims)) {
      if (!k.startsWith(Header.SessionPrefix) || k === ALLOWED_ROLES || k === DEFAULT_ROLE) continue;
      // Array and object claims stay JSON text; permissions read them as array session variables.
      vars[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
    const session = buildSession(role, vars);
    return typeof payload.exp === 'number' ? { ...session, expiresAt: payload.exp * 1000 } : session;
  }
}
