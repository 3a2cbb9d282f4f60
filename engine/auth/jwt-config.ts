/**
 * ENGINE_GRAPHQL_JWT_SECRET (JSON) → a validated JwtConfig. v2 compat: keys
 * and defaults of docs/compat.md, "JWT".
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { canonicalSessionName } from './headers.ts';
import { parseJsonPath, type JsonPath } from './json-path.ts';

/** Default namespace of the engine's claims inside the token. */
export const DEFAULT_CLAIMS_NAMESPACE = 'https://engine.dev/jwt/claims';
/** v2's default namespace, read when the token has none of the engine's and no namespace is configured (Note [v2 session names]). */
export const V2_CLAIMS_NAMESPACE = 'https://hasura.io/jwt/claims';

/** Signature algorithms a JWT configuration may name. */
export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'Ed25519',
  'EdDSA',
] as const;

/** A claims_map entry: a JSON path into the token (with an optional default) or a literal value. */
export type ClaimMapping =
  { readonly kind: 'path'; readonly path: JsonPath; readonly default?: unknown } | { readonly kind: 'literal'; readonly value: unknown };

/** The parsed JWT configuration. */
export interface JwtConfig {
  /** Algorithm named by `type`; null with `jwk_url` and no `type` (then the key type decides, never HMAC). */
  readonly algorithm: string | null;
  readonly key: string | null;
  readonly jwkUrl: string | null;
  /** Where the claims object sits: a JSON path into the payload. */
  readonly claimsPath: JsonPath;
  /** Where else it may sit when `claimsPath` holds nothing: v2's default namespace, when none is configured. */
  readonly claimsFallbackPath: JsonPath | null;
  readonly claimsFormat: 'json' | 'stringified_json';
  readonly claimsMap: ReadonlyMap<string, ClaimMapping> | null;
  readonly audience: readonly string[] | null;
  readonly issuer: string | null;
  readonly allowedSkewSeconds: number;
  readonly header: { readonly type: 'Authorization' } | { readonly type: 'Cookie'; readonly name: string };
}

function fail(message: string): never {
  throw new EngineError(ErrorCode.InvalidConfiguration, `ENGINE_GRAPHQL_JWT_SECRET: ${message}`);
}

function optionalString(o: Record<string, unknown>, key: string): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') fail(`"${key}" must be a string`);
  return v;
}

function parseClaimsMap(raw: unknown): Map<string, ClaimMapping> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail('"claims_map" must be an object');
  const out = new Map<string, ClaimMapping>();
  for (const [name, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'path' in v) {
      const spec = v as Record<string, unknown>;
      if (typeof spec['path'] !== 'string') fail(`claims_map "${name}": "path" must be a string`);
      const mapping: ClaimMapping =
        'default' in spec ? { kind: 'path', path: parseJsonPath(spec['path']), default: spec['default'] } : { kind: 'path', path: parseJsonPath(spec['path']) };
      out.set(canonicalSessionName(name), mapping);
    } else {
      out.set(canonicalSessionName(name), { kind: 'literal', value: v });
    }
  }
  return out;
}

/** Parses and validates the JWT configuration text. */
export function parseJwtConfig(text: string): JwtConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    fail(`not valid JSON (${(e as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail('must be a JSON object');
  const o = raw as Record<string, unknown>;
  const algorithm = optionalString(o, 'type');
  if (algorithm !== null && !(JWT_ALGORITHMS as readonly string[]).includes(algorithm)) {
    fail(`unsupported "type" ${algorithm}; expected one of ${JWT_ALGORITHMS.join(', ')}`);
  }
  const key = optionalString(o, 'key');
  const jwkUrl = optionalString(o, 'jwk_url');
  if ((key === null) === (jwkUrl === null)) fail('exactly one of "key" or "jwk_url" is required');
  if (key !== null && algorithm === null) fail('"type" is required with "key"');
  const namespace = optionalString(o, 'claims_namespace');
  const namespacePath = optionalString(o, 'claims_namespace_path');
  if (namespace !== null && namespacePath !== null) fail('"claims_namespace" and "claims_namespace_path" are exclusive');
  const claimsPath = namespacePath !== null ? parseJsonPath(namespacePath) : [namespace ?? DEFAULT_CLAIMS_NAMESPACE];
  const format = optionalString(o, 'claims_format') ?? 'json';
  if (format !== 'json' && format !== 'stringified_json') fail('"claims_format" must be "json" or "stringified_json"');
  const aud = o['audience'];
  let audience: string[] | null = null;
  if (typeof aud === 'string') audience = [aud];
  else if (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) audience = aud as string[];
  else if (aud !== undefined && aud !== null) fail('"audience" must be a string or a list of strings');
  const skew = o['allowed_skew'];
  if (skew !== undefined && (typeof skew !== 'number' || !Number.isInteger(skew) || skew < 0)) fail('"allowed_skew" must be a whole number of seconds');
  let header: JwtConfig['header'] = { type: 'Authorization' };
  const h = o['header'];
  if (h !== undefined && h !== null) {
    if (typeof h !== 'object' || Array.isArray(h)) fail('"header" must be an object');
    const ho = h as Record<string, unknown>;
    if (ho['type'] === 'Cookie') {
      if (typeof ho['name'] !== 'string' || ho['name'] === '') fail('a Cookie "header" needs a "name"');
      header = { type: 'Cookie', name: ho['name'] };
    } else if (ho['type'] !== 'Authorization') fail('"header.type" must be "Authorization" or "Cookie"');
  }
  return {
    algorithm,
    key,
    jwkUrl,
    claimsPath,
    claimsFallbackPath: namespace === null && namespacePath === null ? [V2_CLAIMS_NAMESPACE] : null,
    claimsFormat: format,
    claimsMap: o['claims_map'] === undefined || o['claims_map'] === null ? null : parseClaimsMap(o['claims_map']),
    audience,
    issuer: optionalString(o, 'issuer'),
    allowedSkewSeconds: typeof skew === 'number' ? skew : 0,
    header,
  };
}
