/**
 * CORS from ENGINE_GRAPHQL_CORS_DOMAIN: a comma-separated list of origins
 * where `*` stands for any sub-domain (`https://*.example.com`) or any port
 * (`http://localhost:*`), or `*` alone for every origin. v2 compat: unset
 * means every origin.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** A predicate over Origin header values, built from the setting. */
export function buildOriginMatcher(setting: string | null): (origin: string) => boolean {
  const entries = (setting ?? '*')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (entries.includes('*')) return () => true;
  const patterns = entries.map((entry) => {
    const escaped = entry.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    const source = escaped.replace(/:\*/g, ':\\d+').replace(/\*/g, '[a-zA-Z0-9-]+(?:\\.[a-zA-Z0-9-]+)*');
    return new RegExp(`^${source}$`, 'i');
  });
  return (origin) => patterns.some((p) => p.test(origin));
}

/** Registers CORS handling (preflight included) for every route. */
export async function registerCors(app: FastifyInstance, setting: string | null): Promise<void> {
  const allowed = buildOriginMatcher(setting);
  await app.register(cors, {
    origin: (origin, cb) => cb(null, origin === undefined ? false : allowed(origin)),
    credentials: true,
    methods: ['GET', 'POST', 'OPTIONS'],
    maxAge: 1728000,
  });
}
