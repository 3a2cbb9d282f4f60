/**
 * What the HTTP layer needs from the rest of the engine. The server only
 * routes, authenticates and writes responses; the work is behind the
 * interfaces of api/contract.ts.
 */
import type { GraphqlApi, MetadataApi, RestApi, SocketApi } from '../api/contract.ts';
import type { Authenticator } from '../auth/resolve-session.ts';
import type { Settings } from '../cli/settings.ts';
import type { Logger } from '../logger.ts';
import type { EngineMetrics } from '../observability/metrics.ts';
import type { Tracer } from '../observability/tracing.ts';
import type { FinishedRequest } from './request-envelope.ts';

/** Everything buildApp needs. */
export interface AppDeps {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly auth: Authenticator;
  readonly metadata: MetadataApi;
  readonly graphql: GraphqlApi;
  /** Told of every finished HTTP request; none by default. */
  readonly observers?: readonly FinishedRequest[];
  /** The engine's metrics: served at /v1/metrics and bumped per request (none: no route, no counting). */
  readonly metrics?: EngineMetrics;
  /** Null or absent unless tracing is configured (Note [Tracing off costs a null check]). */
  readonly tracer?: Tracer | null;
  /** Operations over WebSocket on /v1/graphql (server/ws/); absent: upgrades are refused. */
  readonly socket?: SocketApi;
  /** REST endpoints and their OpenAPI document. */
  readonly rest: RestApi;
}
