/**
 * `/healthz`, `/readyz` and `/v1/version`. v2 compat: inconsistent metadata
 * still answers 200 on /healthz, with a warning body; /healthz is liveness
 * (the process serves) and never touches a database.
 *
 * Note [Readiness]
 * `/readyz` is the engine's own (v2 has none): 200 when the metadata database
 * and every open source answer a round trip within READY_TIMEOUT_MS, 503
 * otherwise, with the checks as JSON either way. A liveness probe that
 * touched the database would restart every engine during a database outage;
 * readiness only takes them out of the Service until it is back.
 *
 * `/readyz?remotes=true` also probes every remote schema and lists them under
 * `remotes` ({name, ok, error?, latencyMs, inconsistent?}; Note [Probing a
 * remote schema] in remote/probe.ts), for the operator. A remote never changes
 * the status: one remote down must not take every replica out of the Service,
 * and the kubelet's plain /readyz never contacts a remote. The probe names the
 * remotes and their hosts and sends requests out, so with an admin secret set it
 * answers only to that secret (401 `access-denied`); plain /readyz stays open for
 * the kubelet.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { ENGINE_VERSION } from '../../version.ts';
import { isAdminSecretValid } from '../../auth/admin-secret.ts';
import { Header, withV2Aliases } from '../../auth/headers.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { apiErrorBody } from '../../errors/wire-body.ts';

/** How long each database may take to answer a readiness round trip. */
const READY_TIMEOUT_MS = 2_000;

/** Registers the health and version routes. */
export async function registerHealthRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  app.get('/healthz', async (_request, reply) => {
    reply.type('text/plain; charset=utf-8');
    return deps.metadata.isConsistent() ? 'OK' : 'WARN: inconsistent objects in schema';
  });
  app.get('/readyz', async (request, reply) => {
    const remotes = (request.query as Record<string, unknown> | undefined)?.['remotes'];
    if (remotes !== undefined && remotes !== 'true' && remotes !== 'false') {
      return reply.code(400).send({ code: 'bad-request', error: 'the "remotes" parameter must be true or false', path: '$.remotes' });
    }
    const { adminSecret } = deps.settings;
    if (remotes === 'true' && adminSecret !== null) {
      const presented = withV2Aliases(request.headers)[Header.AdminSecret];
      if (typeof presented !== 'string' || !isAdminSecretValid(adminSecret, presented)) {
        const err = new EngineError(ErrorCode.AccessDenied, 'probing remote schemas needs the admin secret', { path: '$', status: 401 });
        return reply.code(401).send(apiErrorBody(err, false));
      }
    }
    // The remotes never decide the status (Note [Readiness]).
    const [r, probes] = await Promise.all([deps.metadata.readiness(READY_TIMEOUT_MS), remotes === 'true' ? deps.metadata.remoteReadiness() : null]);
    return reply.code(r.ready ? 200 : 503).send({ status: r.ready ? 'ready' : 'not ready', checks: r.checks, ...(probes === null ? {} : { remotes: probes }) });
  });
  app.get('/v1/version', async () => ({ version: ENGINE_VERSION }));
}
