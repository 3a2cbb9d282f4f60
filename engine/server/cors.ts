/**
 * CORS from ENGINE_GRAPHQL_CORS_DOMAIN: a comma-separated list of origins
 * where `*` stands for any sub-domain (`https://*.example.com`) or any port
 * (`http://localhost:*`), or `*` alone for every origin. v2 compat: unset
 * means every origin. Unlike v2, only origins the list names get
 * `Access-Control-Allow-Credentials` (Note [Cookie credentials] in cookie-guard.ts).
 */
import cors, { type FastifyCorsOptions, type FastifyCorsOptionsDelegatePromise } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** What the CORS setting allows an origin. */
export interface CorsPolicy {
  /** May read answers (Access-Control-Allow-Origin): every origin under `*`. */
  readonly allows: (origin: string) => boolean;
  /** May send credentials (Access-Control-Allow-Credentials): origins the setting names, never through `*` alone. */
  readonly credentialed: (origin: string) => boolean;
}

function namedMatcher(entries: readonly string[]): (origin: string) => boolean {
  const patterns = entries.map((entry) => {
    const escaped = entry.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    const source = escaped.replace(/:\*/g, ':\\d+').replace(/\*/g, '[a-zA-Z0-9-]+(?:\\.[a-zA-Z0-9-]+)*');
    return new RegExp(`^${source}$`, 'i');
  });
  return (origin) => patterns.some((p) => p.test(origin));
}

/** The policy of a CORS setting (null: unset, every origin as `*`). */
export function buildCorsPolicy(setting: string | null): CorsPolicy {
  const entries = (setting ?? '*')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const named = namedMatcher(entries.filter((e) => e !== '*'));
  return { allows: entries.includes('*') ? () => true : named, credentialed: named };
}

/** A predicate over Origin header values, built from the setting: which origins may read answers. */
export function buildOriginMatcher(setting: string | null): (origin: string) => boolean {
  return buildCorsPolicy(setting).allows;
}

/** Registers CORS handling (preflight included) for every route; credentials only for named origins. */
export async function registerCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  const base: FastifyCorsOptions = {
    origin: (origin, cb) => cb(null, origin === undefined ? false : policy.allows(origin)),
    methods: ['GET', 'POST', 'OPTIONS'],
    maxAge: 1728000,
  };
  const withCredentials = Promise.resolve({ ...base, credentials: true });
  const without = Promise.resolve({ ...base, credentials: false });
  // One argument: @fastify/cors takes a one-argument delegator's answer as a promise.
  const delegator: FastifyCorsOptionsDelegatePromise = (req) => {
    const origin = req.headers.origin;
    return origin !== undefined && policy.credentialed(origin) ? withCredentials : without;
  };
  await app.register(cors, { delegator });
}
