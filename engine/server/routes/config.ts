/**
 * `GET /v1alpha1/config`: the server's configuration as v2's command-line
 * client and console read it (v2's Hasura.Server.API.Config.runGetConfig,
 * served by Hasura.Server.App for admins only). Non-admins get v2's 400
 * `access-denied` "You have to be an admin to access this endpoint" at `$`.
 *
 * Note [Config answer]: the fields are v2's of the same name, from the
 * engine's settings. `jwt` lists the JWT secret's `{claims_namespace,
 * claims_format}` (the namespace path when given by
 * `claims_namespace_path`), or v2's defaults with `claims_map`; `live_queries`
 * and `streaming_queries` are `{batch_size, refetch_delay}` (seconds);
 * `default_naming_convention` is `hasura-default` (the engine has no global
 * default, only per-source `naming_convention`); `experimental_features`
 * names the v2 experimental features the engine always has, so v2 clients
 * offer them: `naming_convention` and `streaming_subscriptions`.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import type { Settings } from '../../cli/settings.ts';
import { DEFAULT_CLAIMS_NAMESPACE } from '../../auth/jwt-config.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { apiErrorBody, toEngineError } from '../../errors/wire-body.ts';
import { ENGINE_VERSION } from '../../version.ts';
import { authenticate } from '../authenticate.ts';
import { contextOf } from '../request-envelope.ts';
import { sendApiResponse } from '../reply.ts';

/** v2's experimental features the engine has without a flag (Note [Config answer]). */
const ALWAYS_ON_FEATURES = ['naming_convention', 'streaming_subscriptions'] as const;

/** The `jwt` list: v2's JWTInfo of the engine's one JWT secret. */
function jwtInfo(text: string | null): unknown[] {
  if (text === null) return [];
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return []; // the engine refuses to start with such a secret; nothing to describe
  }
  if (typeof raw['claims_map'] === 'object' && raw['claims_map'] !== null) {
    return [{ claims_namespace: DEFAULT_CLAIMS_NAMESPACE, claims_format: 'json', claims_map: raw['claims_map'] }];
  }
  const namespace = raw['claims_namespace_path'] ?? raw['claims_namespace'] ?? DEFAULT_CLAIMS_NAMESPACE;
  return [{ claims_namespace: namespace, claims_format: raw['claims_format'] ?? 'json' }];
}

/** v2's ServerConfig, in its field order. */
export function serverConfig(settings: Settings, prometheusMetricsEnabled: boolean): Record<string, unknown> {
  return {
    version: ENGINE_VERSION,
    is_function_permissions_inferred: settings.inferFunctionPermissions,
    is_remote_schema_permissions_enabled: settings.enableRemoteSchemaPermissions,
    is_admin_secret_set: settings.adminSecret !== null,
    is_auth_hook_set: settings.authHook !== null,
    is_jwt_set: settings.jwtSecret !== null,
    jwt: jwtInfo(settings.jwtSecret),
    is_allow_list_enabled: settings.enableAllowlist,
    live_queries: { batch_size: settings.liveQueriesMultiplexedBatchSize, refetch_delay: settings.liveQueriesMultiplexedRefetchInterval / 1000 },
    streaming_queries: {
      batch_size: settings.streamingQueriesMultiplexedBatchSize,
      refetch_delay: settings.streamingQueriesMultiplexedRefetchInterval / 1000,
    },
    console_assets_dir: null,
    experimental_features: [...ALWAYS_ON_FEATURES],
    is_prometheus_metrics_enabled: prometheusMetricsEnabled,
    default_naming_convention: 'hasura-default',
  };
}

/** Registers GET /v1alpha1/config. */
export async function registerConfigRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  app.get('/v1alpha1/config', async (request, reply) => {
    let isAdmin = false;
    const ctx = contextOf(request.raw);
    try {
      const session = await authenticate(deps, request, reply, undefined);
      ctx.session = session;
      isAdmin = session.isAdmin;
      if (!isAdmin) throw new EngineError(ErrorCode.AccessDenied, 'You have to be an admin to access this endpoint', { path: '$', status: 400 });
      return sendApiResponse(reply, { status: 200, json: serverConfig(deps.settings, deps.metrics !== undefined) });
    } catch (e) {
      const err = toEngineError(e);
      ctx.failure = err;
      return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
    }
  });
}
