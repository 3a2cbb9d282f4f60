/**
 * Builds a running engine from settings: metadata service (store + catalog),
 * GraphQL service, HTTP app. Used by `engine serve` and by tests.
 */
import type { FastifyInstance } from 'fastify';
import type { Settings } from './cli/settings.ts';
import type { Logger } from './logger.ts';
import { MetadataService } from './metadata/service.ts';
import { GraphqlService } from './execute/graphql-service.ts';
import { SocketService } from './subscriptions/service.ts';
import { buildApp, closeApp, webSocketsOf } from './server/app.ts';
import { ActionRuntime } from './actions/runtime.ts';
import { Authenticator } from './auth/resolve-session.ts';
import { ErrorCode } from './errors/codes.ts';
import { EngineError } from './errors/engine-error.ts';
import { EngineMetrics } from './observability/metrics.ts';
import { loadOtlpTracer } from './observability/tracing.ts';
import { ENGINE_VERSION } from './version.ts';
import { EventDelivery } from './events/event-delivery.ts';
import { adminQueryChecker } from './rest/query-check.ts';
import { RestService } from './rest/rest-service.ts';
import { resolveEnv } from './cli/env.ts';
import { ScheduledEventStore } from './events/scheduled/event-store.ts';
import { Scheduler } from './events/scheduled/scheduler.ts';
import { MetadataDatabase } from './backends/registry.ts';

/** Scheduled events taken per claim (deliveries in flight: four times this), and keep-alive connections per webhook origin. */
const SCHEDULED_BATCH_SIZE = 100;
const SCHEDULED_HTTP_POOL_SIZE = 100;

/** An engine whose HTTP app is built (not yet listening). */
export interface BuiltEngine {
  readonly app: FastifyInstance;
  readonly metadata: MetadataService;
  /** Its metrics (GET /v1/metrics); the WebSocket server moves their live gauges (LiveMetrics). */
  readonly metrics: EngineMetrics;
  /** Operations over WebSocket (subscriptions). */
  readonly socket: SocketService;
  /** Open WebSockets. */
  openSockets(): number;
  /** Stops taking requests, waits for in-flight ones, closes pools and listeners. */
  close(): Promise<void>;
}

/** Connects to the metadata database, loads metadata, builds the app. */
export async function buildEngine(settings: Settings, logger: Logger): Promise<BuiltEngine> {
  const metadataUrl = settings.metadataDatabaseUrl ?? settings.databaseUrl;
  if (metadataUrl === null) {
    throw new EngineError(
      ErrorCode.InvalidConfiguration,
      'no database: set ENGINE_GRAPHQL_DATABASE_URL (or --database-url) or ENGINE_GRAPHQL_METADATA_DATABASE_URL',
    );
  }
  // Authentication settings are checked before anything connects.
  const auth = await Authenticator.create(settings, logger);
  // One pool and one LISTEN connection on the metadata database for the store, async actions and scheduled events (Note [Metadata database]).
  const metadataDatabase = await MetadataDatabase.open(
    metadataUrl,
    (e) => logger.log('schema-sync', 'warn', { message: 'the LISTEN connection of the metadata database was lost; connecting again', error: e }),
    settings.noOfRetries,
  );
  let scheduledEvents: ScheduledEventStore;
  let metadata: MetadataService;
  // Made below, after the metadata service: stored queries are checked with its schema cache from then on.
  const late: { graphql?: GraphqlService } = {};
  try {
    scheduledEvents = await ScheduledEventStore.open(metadataDatabase);
    metadata = await MetadataService.start({
      metadataDatabaseUrl: metadataUrl,
      metadataDatabase,
      defaultDatabaseUrl: settings.databaseUrl,
      statementTimeoutMs: settings.statementTimeout * 1000,
      logger,
      checkQueries: adminQueryChecker({ inferFunctionPermissions: settings.inferFunctionPermissions }, () => late.graphql?.schemaCache),
      scheduledEvents,
    });
  } catch (e) {
    await metadataDatabase.close();
    throw e;
  }
  const metrics = new EngineMetrics({ nodeDefaults: settings.metricsNodeDefaults });
  const scheduler = await Scheduler.start({
    metrics,
    store: scheduledEvents,
    catalogRef: metadata.catalogRef,
    logger,
    env: resolveEnv,
    batchSize: SCHEDULED_BATCH_SIZE,
    httpPoolSize: SCHEDULED_HTTP_POOL_SIZE,
  });
  const actions = await ActionRuntime.start({ metadataDatabase, catalogRef: metadata.catalogRef, logger, metrics });
  metadata.attachActionData(actions);
  const graphql = new GraphqlService(metadata.catalogRef, {
    actions,
    metrics,
    stringifyNumericTypes: settings.stringifyNumericTypes,
    inferFunctionPermissions: settings.inferFunctionPermissions,
    remoteSchemaPermissions: settings.enableRemoteSchemaPermissions,
    relayHideUnselectableKeys: settings.relayHideUnselectableKeys,
    planCacheBytes: settings.planCacheSizeMb * 1024 * 1024,
    queryFieldLimit: settings.queryFieldLimit,
    enableAllowlist: settings.enableAllowlist,
    logger,
  });
  late.graphql = graphql;
  const tracer = settings.otlpTracesEndpoint === null ? null : await loadOtlpTracer(settings.otlpTracesEndpoint, 'engine', ENGINE_VERSION);
  const socket = new SocketService(graphql, {
    logger,
    liveRefetchIntervalMs: settings.liveQueriesMultiplexedRefetchInterval,
    liveBatchSize: settings.liveQueriesMultiplexedBatchSize,
    streamRefetchIntervalMs: settings.streamingQueriesMultiplexedRefetchInterval,
    streamBatchSize: settings.streamingQueriesMultiplexedBatchSize,
    refetchOnChange: settings.liveQueriesRefetchOnChange,
    liveMaxConnections: settings.liveQueriesMaxConnections,
    metrics,
  });
  const rest = new RestService(metadata.catalogRef, graphql);
  const app = await buildApp({ settings, logger, auth, metadata, graphql, metrics, tracer, socket, rest });
  metrics.setSources({
    planCache: () => graphql.planCacheStats,
    resourceVersion: () => metadata.catalogRef.current.resourceVersion,
    inconsistentObjects: () => metadata.catalogRef.current.inconsistencies.length,
    pools: () => {
      const out = [];
      for (const s of metadata.catalogRef.current.sources.values()) {
        const stats = s.connection.poolStats?.();
        if (stats !== undefined) out.push({ source: s.name, ...stats });
      }
      return out;
    },
    httpConnections: () => new Promise((resolve) => app.server.getConnections((e, n) => resolve(e === null ? n : 0))),
  });
  // Event delivery (Note [Event delivery]); off on a replica that only serves.
  const events = settings.eventsDelivery
    ? new EventDelivery(metadata.catalogRef, {
        poolSize: Math.max(1, settings.eventsHttpPoolSize),
        fetchIntervalMs: settings.eventsFetchInterval,
        batchSize: Math.max(1, settings.eventsFetchBatchSize),
        leaseMs: Math.max(1, settings.eventsLeaseSeconds) * 1000,
        logger,
        metrics,
      })
    : null;
  events?.start();
  let closed = false;
  return {
    app,
    metadata,
    metrics,
    socket,
    openSockets: () => webSocketsOf(app)?.size ?? 0,
    async close() {
      if (closed) return;
      closed = true;
      await closeApp(app);
      await socket.close();
      await events?.close();
      await actions.close();
      await scheduler.close();
      await metadata.close();
      await metadataDatabase.close();
      // Spans of the last requests are exported before the process goes.
      await tracer?.shutdown();
    },
  };
}
