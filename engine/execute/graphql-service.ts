/**
 * The GraphQL API: one request from body to response text, through the
 * named request steps of request-steps.ts (Note [Request steps]):
 *
 *   allow ▶ plan-cache hit? ─no─▶ parse ▶ validate ▶ toIr ▶ plan
 *                 │yes                                       │
 *                 ▼                                          ▼
 *           coerce variables ▶ bind ▶ run ▶ respond `{"data":…}`
 *
 * See architecture.md, "One GraphQL request", and Note [Plan cache keys].
 */
import type { RunOptions, SourceConnection } from '../backends/backend.ts';
import type { RequestContext } from '../request-context.ts';
import type { ApiResponse, ByteStringResponse, ExecuteOptions, GraphqlApi, GraphqlResponse } from '../api/contract.ts';
import type { CatalogRef } from '../catalog/snapshot.ts';
import type { Logger } from '../logger.ts';
import { buildSession, roleViewKey, ADMIN_ROLE, type Session } from '../auth/session.ts';
import { canonicalNames } from '../auth/headers.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, isEngineError } from '../errors/engine-error.ts';
import type { BoundPlan } from './bind.ts';
import type * as ir from '../ir/index.ts';
import type { GraphqlMetrics, OperationType } from '../observability/metrics.ts';
import { StepSpans, type SpanAttributes, type SpanKind } from '../observability/tracing.ts';
import { SchemaCache } from '../graphql/schema/schema-cache.ts';
import { explainPlan } from './explain-plan.ts';
import type { ActionRuntime } from '../actions/runtime.ts';
import type { ActionServices } from './action-step.ts';
import { ApiLimitsPolicy, RateLimiter, type RoleLimits } from './api-limits.ts';
import { PlanCache } from './plan-cache.ts';
import { allowRequest, bind, MUTATION_OVER_GET, planRequest, respond, run, runByteString, type PlanEnv, type PlannedRequest } from './request-steps.ts';
import { PersistedQueries } from './persisted-queries.ts';
import { parseGraphqlRequest, type GraphqlRequest } from './request-body.ts';
import { dataOf, dataResponse } from './response.ts';
import type { GraphQLSchema } from 'graphql';
import { apiErrorBody, graphqlErrorBody } from '../errors/wire-body.ts';
import { LEGACY_DML_TYPES, legacyOperation, type FilterOf } from '../graphql/legacy-dml.ts';

/**
 * Note [Request path without async frames] (issue 35)
 * An async function that awaits keeps its frame (every parameter and local)
 * in a heap object for the wait, with its promise: per request, the four
 * async steps a plan-cache hit passed through (answerGraphql, execute,
 * #executeOne, runPlan) allocated 0.7-1 KB each, about a third of what the
 * engine's own code allocates per request, and that garbage is what makes
 * V8's young collections come often enough to copy and promote the objects
 * of requests in flight. So the common case chains promises instead: when
 * authentication needs no I/O and nothing is traced, answerGraphql
 * (server/graphql-answer.ts) chains its answer on execute's promise; execute
 * chains a lone operation's 200 on #executeOne's with shared functions;
 * #executeOne chains its respond step on run's (its failures through
 * #failedOne, as the catch did); runPlan chains a lone read on the
 * statement's promise. Batches, /v1alpha1/graphql's statuses, traced
 * requests, auth that needs I/O and plans of several steps keep their async
 * functions. `node test/bench/request-path.ts <url> AlbumByPK customer 20000
 * 2` (its `allocated` column; chinook from `test/bench/serve.ts`,
 * 2026-11-29 01:14, 6540b48 against this change): engine 10,606 → 8,713
 * bytes per request as customer and 10,070 → 8,492 as admin, where a bare pg
 * pool's query allocates 8,420-8,500.
 */

/** Options of {@link GraphqlService}. */
export interface GraphqlServiceOptions {
  readonly stringifyNumericTypes: boolean;
  readonly logger: Logger;
  /** Estimated bytes the plan cache may keep (default 128 MiB; Note [Plan cache bytes]). */
  readonly planCacheBytes?: number;
  /** Most fields an operation may select, fragments expanded (default 5000; 0: no bound). See Note [Operation cost]. */
  readonly queryFieldLimit?: number;
  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (default true). */
  readonly inferFunctionPermissions?: boolean;
  /** Told of every operation answered (observability/metrics.ts); none: nothing counted. */
  readonly metrics?: GraphqlMetrics;
  /** ENGINE_GRAPHQL_ENABLE_ALLOWLIST (default false). */
  readonly enableAllowlist?: boolean;
  /** ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS (default false). */
  readonly remoteSchemaPermissions?: boolean;
  /** The asynchronous action store and worker (actions/runtime.ts); absent: asynchronous actions answer not-supported. */
  /** ENGINE_GRAPHQL_RELAY_HIDE_UNSELECTABLE_KEYS (default false; Note [Relay ids of unselectable keys]). */
  readonly relayHideUnselectableKeys?: boolean;
  readonly actions?: ActionRuntime;
}

function asEngineError(e: unknown): EngineError {
  if (isEngineError(e)) return e;
  return new EngineError(ErrorCode.Unexpected, 'unexpected error', { internal: String(e), cause: e });
}

/** A WebSocket operation planned by {@link GraphqlService.planSocketOperation}. */
export interface SocketOperationPlan extends PlannedRequest {
  readonly catalogVersion: number;
  readonly shareKey: string;
  readonly runOptions: RunOptions | undefined;
  /** What action steps need (the async store, the client's headers); undefined without actions. */
  readonly services: ActionServices | undefined;
  /** Keeps the plan in the plan cache (call once it ran without error). */
  remember(): void;
}

/**
 * v2 compat: the HTTP status of a failed request on /v1alpha1/graphql: the error's own status;
 * database errors (answered 200 on /v1/graphql) are 400, an unexpected one 500.
 */
function v1alpha1Status(err: EngineError): number {
  if (err.status !== 200) return err.status;
  return err.code === ErrorCode.Unexpected ? 500 : 400;
}

/** Implements /v1/graphql and /v1/graphql/explain over the catalog in force. */
export class GraphqlService implements GraphqlApi {
  readonly #catalogRef: CatalogRef;
  readonly #logger: Logger;
  /** v2's query-log is on (read once: off, it costs one field check per request). */
  readonly #queryLog: boolean;
  readonly #schemas: SchemaCache;
  readonly #plans: PlanCache;
  /** What the request steps up to `plan` share across requests. */
  readonly #env: PlanEnv;
  /** Automatic persisted queries by hash (Note [Automatic persisted queries]). */
  readonly #persisted = new PersistedQueries();
  /** `/v1beta1/relay`'s: its own schemas and plans (Note [Relay schema]), made on its first request. */
  #relayEnv: PlanEnv | null = null;
  readonly #opts: GraphqlServiceOptions;
  readonly #actions: ActionRuntime | undefined;
  /** The API limits of the catalog in force (null: none set). */
  #limits: ApiLimitsPolicy | null = null;
  readonly #rates = new RateLimiter();
  readonly #metrics: GraphqlMetrics | null;

  /** The role schemas of /v1/graphql (rest/query-check.ts builds stored queries' admin schemas with their types). */
  get schemaCache(): SchemaCache {
    return this.#schemas;
  }

  constructor(catalogRef: CatalogRef, opts: GraphqlServiceOptions) {
    this.#catalogRef = catalogRef;
    this.#opts = opts;
    this.#logger = opts.logger;
    this.#queryLog = opts.logger.enabled('query-log', 'info');
    this.#metrics = opts.metrics ?? null;
    this.#actions = opts.actions;
    this.#plans = new PlanCache(opts.planCacheBytes ?? 128 * 1024 * 1024);
    this.#schemas = new SchemaCache(
      { inferFunctionPermissions: opts.inferFunctionPermissions ?? true, remoteSchemaPermissions: opts.remoteSchemaPermissions === true },
      (role, error) => this.#logger.log('schema-sync', 'error', { message: 'role schema could not be built', role, error }),
    );
    this.#env = {
      schemas: this.#schemas,
      stringifyNumericTypes: opts.stringifyNumericTypes,
      fieldLimit: opts.queryFieldLimit ?? 5000,
      cache: this.#plans,
      allowlist: opts.enableAllowlist === true,
    };
    catalogRef.subscribe((c) => {
      this.#plans.clear();
      this.#relayEnv?.cache?.clear();
      this.#limits = c.apiLimits === undefined ? null : new ApiLimitsPolicy(c.apiLimits);
      this.#schemas.warm(c);
    });
    const c = catalogRef.current;
    this.#limits = c.apiLimits === undefined ? null : new ApiLimitsPolicy(c.apiLimits);
    this.#schemas.warm(c);
  }

  /**
   * Executes one request body (or a batch: a list of them). Errors come back
   * with status 200. `ctx` (from the HTTP layer) carries the client address
   * for rate limits and the cancellation of a request whose client left.
   */
  execute(session: Session, body: unknown, options?: ExecuteOptions, ctx?: RequestContext): Promise<GraphqlResponse> {
    const readOnly = options?.readOnly === true;
    const env = options?.relay === true ? this.#relay() : this.#env;
    const limits = this.#limits === null ? null : this.#limits.forRole(session.role, session.isAdmin);
    if (limits !== null) {
      const span = ctx?.trace?.child('allow') ?? null;
      const refused = allowRequest(session, limits, this.#rates, ctx?.clientAddress, Array.isArray(body) ? body.length : null);
      span?.end(refused ?? undefined);
      if (refused !== null) {
        if (ctx !== undefined) ctx.failure = refused;
        this.#metrics?.graphqlOperation('unknown', false, 0);
        return Promise.resolve({ status: 200, jsonText: JSON.stringify(graphqlErrorBody(refused, session.isAdmin)) });
      }
    }
    // One operation answered 200: its text chained, no async frame (Note [Request path without async frames]).
    if (!Array.isArray(body) && options?.errorStatus !== true)
      return this.#executeOne(session, body, readOnly, limits, ctx, null, false, null, env, options?.bytes === true).then(
        answered,
        session.isAdmin ? refusedAdmin : refusedUser,
      );
    return this.#executeMore(session, body, readOnly, limits, ctx, options, env);
  }

  /** A batch, or one operation of /v1alpha1/graphql (its error's status): see execute. */
  async #executeMore(
    session: Session,
    body: unknown,
    readOnly: boolean,
    limits: RoleLimits | null,
    ctx: RequestContext | undefined,
    options: ExecuteOptions | undefined,
    env: PlanEnv,
  ): Promise<ApiResponse> {
    try {
      if (Array.isArray(body)) {
        // v2 compat: a batch runs its operations one after another, each seeing the
        // effects of the earlier ones (each in its own transaction), and answers 200.
        const parts: string[] = [];
        for (const b of body) parts.push(textOf(await this.#executeOne(session, b, readOnly, limits, ctx, null, false, null, env)));
        return { status: 200, jsonText: `[${parts.join(',')}]` };
      }
      if (options?.errorStatus !== true)
        return { status: 200, jsonText: textOf(await this.#executeOne(session, body, readOnly, limits, ctx, null, false, null, env)) };
      const failed: EngineError[] = [];
      const jsonText = textOf(await this.#executeOne(session, body, readOnly, limits, ctx, null, false, failed, env));
      const err = failed[0];
      return { status: err === undefined ? 200 : v1alpha1Status(err), jsonText };
    } catch (e) {
      return refusedResponse(e, session.isAdmin);
    }
  }

  /** The Relay API's request environment, made on first use. */
  #relay(): PlanEnv {
    if (this.#relayEnv === null) {
      const options = {
        inferFunctionPermissions: this.#opts.inferFunctionPermissions ?? true,
        relay: true,
        relayHideUnselectableKeys: this.#opts.relayHideUnselectableKeys === true,
      };
      const schemas = new SchemaCache(options, (role, error) =>
        this.#logger.log('schema-sync', 'error', { message: 'role relay schema could not be built', role, error }),
      );
      this.#relayEnv = { ...this.#env, schemas, cache: new PlanCache(this.#opts.planCacheBytes ?? 128 * 1024 * 1024) };
    }
    return this.#relayEnv;
  }

  /** The Relay API's plan cache figures (zero before its first request). */
  get relayPlanCacheStats(): { readonly entries: number; readonly bytes: number; readonly hits: number; readonly misses: number } {
    const c = this.#relayEnv?.cache;
    return c === undefined ? { entries: 0, bytes: 0, hits: 0, misses: 0 } : { entries: c.size, bytes: c.bytes, hits: c.hits, misses: c.misses };
  }

  /** Action and remote steps get the async store and the client's headers; other plans need nothing more. */
  #servicesFor(ctx: RequestContext | undefined): ActionServices | undefined {
    const catalog = this.#catalogRef.current;
    return catalog.actions === undefined && catalog.remoteSchemas === undefined
      ? undefined
      : { ...(this.#actions === undefined ? {} : { runtime: this.#actions }), ...(ctx?.headers === undefined ? {} : { clientHeaders: ctx.headers }) };
  }

  /** Cached operations, their estimated bytes, and lookups that hit or missed (Note [Plan cache bytes]). */
  get planCacheStats(): { readonly entries: number; readonly bytes: number; readonly hits: number; readonly misses: number } {
    return { entries: this.#plans.size, bytes: this.#plans.bytes, hits: this.#plans.hits, misses: this.#plans.misses };
  }

  /**
   * One request through the steps after the request half of `allow`: the
   * `{"data":…}` text, or the `{"errors":…}` text of a failure; with
   * `rethrow` (REST endpoints, which have the request parsed already) a
   * failure is thrown instead, recorded alike. `failed` (when given) receives
   * the error answered (/v1alpha1/graphql's status). With `bytes`, a lone
   * read's answer may come as a byte string, answered 200 (Note [Answer bytes]
   * in backends/postgres/answer-bytes.ts); without, it is always text.
   */
  #executeOne(
    session: Session,
    body: unknown,
    readOnly: boolean,
    limits: RoleLimits | null,
    ctx: RequestContext | undefined,
    parsed: GraphqlRequest | null = null,
    rethrow = false,
    failed: EngineError[] | null = null,
    env: PlanEnv = this.#env,
    bytes = false,
  ): Promise<string | ByteStringResponse> {
    // The operation's span and its steps' spans, when tracing (Note [Tracing off costs a null check]).
    const trace = ctx === undefined ? null : ctx.trace;
    const steps = trace === null ? null : new StepSpans(trace.child('graphql'));
    let kind: OperationType = 'unknown';
    try {
      const req = parsed ?? parseGraphqlRequest(body, '$', this.#persisted);
      const planned = planRequest(env, { catalog: this.#catalogRef.current, session, request: req, limits, readOnly, steps });
      const { plan, variables } = planned;
      kind = planned.kind;
      const timeoutMs = limits === null ? null : limits.timeoutMs;
      const opts: RunOptions | undefined = ctx === undefined ? (timeoutMs === null ? undefined : { timeoutMs }) : { cancel: ctx, timeoutMs };
      const services = this.#servicesFor(ctx);
      steps?.begin('bind');
      const bound = bind(plan, variables, session);
      if (this.#queryLog) this.#logQuery(req, bound, ctx);
      // The attributes are built only when tracing (optional call: no argument is evaluated on null).
      steps?.begin('run', runAttributes(bound), runKind(bound));
      const ran = kind;
      const asBytes = bytes ? runByteString(bound, opts) : undefined;
      if (asBytes !== undefined)
        return asBytes.then(
          (cell) => {
            steps?.begin('respond');
            // The frame is ASCII, so the whole is a byte string still.
            const answer = { status: 200, jsonByteString: dataResponse(cell ?? 'null') };
            this.#answered(steps, planned, env, ctx);
            return answer;
          },
          (e: unknown) => this.#failedOne(e, steps, ran, session, ctx, failed, rethrow),
        );
      // Chained, not awaited: no async frame per request (Note [Request path without async frames]).
      return run(bound, opts, services).then(
        (results) => {
          try {
            steps?.begin('respond');
            const text = respond(plan, results);
            this.#answered(steps, planned, env, ctx);
            return text;
          } catch (e) {
            return this.#failedOne(e, steps, ran, session, ctx, failed, rethrow);
          }
        },
        (e: unknown) => this.#failedOne(e, steps, ran, session, ctx, failed, rethrow),
      );
    } catch (e) {
      try {
        return Promise.resolve(this.#failedOne(e, steps, kind, session, ctx, failed, rethrow));
      } catch (thrown) {
        return Promise.reject(thrown);
      }
    }
  }

  /** An operation of #executeOne that answered: its spans ended, its plan cached, its success counted. */
  #answered(steps: StepSpans | null, planned: PlannedRequest, env: PlanEnv, ctx: RequestContext | undefined): void {
    if (steps !== null) {
      steps.end();
      steps.parent.end();
    }
    // Only operations that ran without error are cached (Note [Plan cache bytes]).
    const pending = planned.pending;
    if (pending !== null) env.cache?.store(pending.version, pending.key, pending.entry, pending.planKey, planned.plan);
    if (this.#metrics !== null) this.#metrics.graphqlOperation(planned.kind, true, secondsSince(ctx));
  }

  /** A failed operation of #executeOne: recorded, then its `{"errors":…}` text, or thrown (a mutation over GET, `rethrow`). */
  #failedOne(
    e: unknown,
    steps: StepSpans | null,
    kind: OperationType,
    session: Session,
    ctx: RequestContext | undefined,
    failed: EngineError[] | null,
    rethrow: boolean,
  ): string {
    if (steps !== null) {
      steps.fail(e);
      steps.parent.end(e);
    }
    this.#metrics?.graphqlOperation(kind, false, 0);
    if (e === MUTATION_OVER_GET) throw e;
    const err = asEngineError(e);
    if (ctx !== undefined) ctx.failure = err;
    if (err.code === ErrorCode.Unexpected) this.#logger.error('graphql request failed', { request_id: ctx?.requestId, error: err });
    failed?.push(err);
    if (rethrow) throw err;
    return JSON.stringify(graphqlErrorBody(err, session.isAdmin));
  }

  /**
   * One parsed request through every step, as /v1/graphql runs it (the same
   * plan cache, allow-list, limits, spans and metrics): the text of the
   * `data` object, or (a lone read) its byte string answered 200 (Note
   * [Answer bytes] in backends/postgres/answer-bytes.ts). Throws an
   * EngineError. REST endpoints call this (rest/rest-service.ts).
   */
  async runRequest(session: Session, req: GraphqlRequest, ctx?: RequestContext): Promise<string | ByteStringResponse> {
    const limits = this.#limits === null ? null : this.#limits.forRole(session.role, session.isAdmin);
    if (limits !== null) {
      const refused = allowRequest(session, limits, this.#rates, ctx?.clientAddress, null);
      if (refused !== null) {
        if (ctx !== undefined) ctx.failure = refused;
        throw refused;
      }
    }
    const answer = await this.#executeOne(session, undefined, false, limits, ctx, req, true, null, this.#env, true);
    // The frame is ASCII: the data object of a byte string is a byte string.
    return typeof answer === 'string' ? dataOf(answer) : { status: 200, jsonByteString: dataOf(answer.jsonByteString) };
  }

  /** The admin's client-facing schema of the catalog in force (REST endpoints read variable and result types from it). */
  adminSchema(): GraphQLSchema {
    return this.#schemas.get(this.#catalogRef.current, ADMIN_ROLE, true).schema;
  }

  /** v2's query-log line: the request and the statements it runs, with their arguments. */
  #logQuery(req: GraphqlRequest, bound: BoundPlan, ctx: RequestContext | undefined): void {
    const generated: Array<{ source: string; query: string; prepared_arguments: readonly unknown[] }> = [];
    for (const step of bound) {
      if (step.kind === 'read') generated.push({ source: step.step.source, query: step.statement.text, prepared_arguments: step.statement.values });
      else if (step.kind === 'write')
        for (const t of step.transactions)
          for (const st of t.statements) generated.push({ source: t.fields[0]?.source ?? '', query: st.text, prepared_arguments: st.values });
    }
    this.#logger.log('query-log', 'info', {
      kind: 'database',
      request_id: ctx?.requestId ?? null,
      query: { query: req.query, variables: req.variables, operationName: req.operationName },
      generated_sql: generated,
    });
  }

  /** The plan of a request: the request steps up to `plan`, through the plan cache (Note [Request steps]). */
  #planFor(
    session: Session,
    request: GraphqlRequest,
    limits: RoleLimits | null,
    readOnly: boolean,
    patchIr?: (f: ir.OperationField) => ir.OperationField,
  ): PlannedRequest {
    return planRequest(this.#env, { catalog: this.#catalogRef.current, session, request, limits, readOnly, ...(patchIr === undefined ? {} : { patchIr }) });
  }

  /**
   * The request steps up to `plan` for the WebSocket transport
   * (engine/subscriptions/; Note [Request steps]): `allow` (rate limits), then
   * planRequest through this service's plan cache. Throws EngineError.
   * `shareKey` is equal for requests that run the same plan (catalog version,
   * role view, operation, structural variables): a live-query cohort.
   */
  planSocketOperation(session: Session, body: unknown, ctx?: RequestContext): SocketOperationPlan {
    const limits = this.#limits === null ? null : this.#limits.forRole(session.role, session.isAdmin);
    if (limits !== null) {
      const refused = allowRequest(session, limits, this.#rates, ctx?.clientAddress, null);
      if (refused !== null) throw refused;
    }
    const request = parseGraphqlRequest(body, '$', this.#persisted);
    const catalog = this.#catalogRef.current;
    const planned = planRequest(this.#env, { catalog, session, request, limits, readOnly: false, socket: true });
    const timeoutMs = limits === null ? null : limits.timeoutMs;
    const pending = planned.pending;
    return {
      ...planned,
      catalogVersion: catalog.version,
      shareKey: `${catalog.version}\u0000${PlanCache.key(roleViewKey(session), request.operationName, request.query)}\u0000${planned.planKey}`,
      runOptions: ctx === undefined ? (timeoutMs === null ? undefined : { timeoutMs }) : { cancel: ctx, timeoutMs },
      services: this.#servicesFor(ctx),
      remember: () => {
        if (pending !== null) this.#plans.store(pending.version, pending.key, pending.entry, pending.planKey, planned.plan);
      },
    };
  }

  /** The catalog in force changes (subscriptions re-plan their operations). */
  onCatalogChange(fn: (version: number) => void): () => void {
    return this.#catalogRef.subscribe((c) => fn(c.version));
  }

  /** A v1 data call rewritten as a GraphQL operation of the role's schema and run as one (Note [Legacy DML]). */
  async legacyQuery(session: Session, body: unknown, ctx?: RequestContext): Promise<ApiResponse | null> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const b = body as Record<string, unknown>;
    const type = b['type'];
    if (typeof type !== 'string' || !LEGACY_DML_TYPES.has(type)) return null;
    try {
      const catalog = this.#catalogRef.current;
      const role = this.#schemas.get(catalog, session.role, session.isAdmin, session.backendOnly === true);
      if (role.naming !== undefined)
        throw new EngineError(ErrorCode.NotSupported, 'legacy data operations are not supported under the graphql-default naming convention', { path: '$' });
      // The role's row filter of each table it reads, for the tables a v1 `where` reaches (Note [Legacy DML]).
      const filterOf: FilterOf = session.isAdmin
        ? null
        : (t) => {
            for (const v of role.access.tables.values()) if (v.info.name.schema === t.schema && v.info.name.name === t.name) return v.filter;
            return undefined;
          };
      const op = legacyOperation(type, b['args'], role.schema, catalog, session.role, filterOf);
      const limits = this.#limits === null ? null : this.#limits.forRole(session.role, session.isAdmin);
      const { plan, variables, pending } = this.#planFor(session, { query: op.query, variables: op.variables, operationName: null }, limits, false, op.patch);
      const timeoutMs = limits === null ? null : limits.timeoutMs;
      const text = respond(plan, await run(bind(plan, variables, session), ctx === undefined ? { timeoutMs } : { cancel: ctx, timeoutMs }));
      if (pending !== null) this.#plans.store(pending.version, pending.key, pending.entry, pending.planKey, plan);
      const data = (JSON.parse(text) as { data?: Record<string, unknown> }).data;
      return { status: 200, json: op.reshape(data?.['r'] ?? null) };
    } catch (e) {
      const err = asEngineError(e);
      if (err.code === ErrorCode.Unexpected) this.#logger.error('legacy query failed', { request_id: ctx?.requestId, error: err });
      // GraphQL paths mean nothing to a v1 caller: errors from the rewritten operation are reported at `$.args`.
      const path = err.path.startsWith('$.selectionSet') || err.path.startsWith('$.variable') ? '$.args' : err.path;
      const status = err.status !== 200 ? err.status : err.code === ErrorCode.Unexpected ? 500 : 400;
      const shown = new EngineError(err.code, err.message, { path, status, internal: err.internal, cause: err });
      return { status, json: apiErrorBody(shown, session.isAdmin) };
    }
  }

  /** `/v1/graphql/explain`: the SQL and Postgres plan of each database root field. */
  async explain(body: unknown): Promise<ApiResponse> {
    try {
      const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const req = parseGraphqlRequest(b['query'], '$.query');
      const user = typeof b['user'] === 'object' && b['user'] !== null ? (b['user'] as Record<string, unknown>) : {};
      const raw: Record<string, string> = {};
      for (const [k, v] of Object.entries(user)) raw[k] = typeof v === 'string' ? v : JSON.stringify(v);
      // v2's x-hasura-role names the role too (Note [v2 session names]).
      const vars = canonicalNames(raw);
      const session = buildSession(vars['x-engine-role'] ?? ADMIN_ROLE, vars);
      const { plan, variables } = this.#planFor(session, req, this.#limits?.forRole(session.role, session.isAdmin) ?? null, false);
      return { status: 200, json: await explainPlan(plan, variables, session, this.#catalogRef.current) };
    } catch (e) {
      const err = asEngineError(e);
      return { status: err.status === 500 ? 500 : 400, json: apiErrorBody(err, false) };
    }
  }
}

/** An operation's text answered with 200, or its byte string's answer (execute). */
const answered = (answer: string | ByteStringResponse): GraphqlResponse => (typeof answer === 'string' ? { status: 200, jsonText: answer } : answer);

/** #executeOne's answer as text (a byte string's UTF-8 decoded; only asked-for bytes come as one). */
function textOf(answer: string | ByteStringResponse): string {
  return typeof answer === 'string' ? answer : Buffer.from(answer.jsonByteString, 'latin1').toString('utf8');
}

/** What execute answers when #executeOne throws: only a mutation in a read-only request does. */
function refusedResponse(e: unknown, isAdmin: boolean): ApiResponse {
  const err = asEngineError(e);
  return { status: err.status, jsonText: JSON.stringify(graphqlErrorBody(err, isAdmin)) };
}
const refusedAdmin = (e: unknown): ApiResponse => refusedResponse(e, true);
const refusedUser = (e: unknown): ApiResponse => refusedResponse(e, false);

/** Seconds since the request arrived (v2's execution time includes authentication); 0 without a context. */
function secondsSince(ctx: RequestContext | undefined): number {
  return ctx === undefined ? 0 : (performance.now() - ctx.startedAt) / 1000;
}

/** Longest SQL text put on a `run` span. */
const MAX_TRACED_SQL = 8_192;

/** The one database `bound` runs on, or null (several, or none: actions and remote schemas only). */
function runPeer(bound: BoundPlan): SourceConnection | null {
  let conn: SourceConnection | null = null;
  for (const step of bound) {
    if (step.kind === 'read') {
      if (conn !== null && conn !== step.step.connection) return null;
      conn = step.step.connection;
    } else if (step.kind === 'write') {
      for (const t of step.transactions) {
        if (conn !== null && conn !== t.connection) return null;
        conn = t.connection;
      }
    } else return null;
  }
  return conn;
}

/** The `run` span is a call to the database when it runs on one (Note [Database spans] in observability/tracing.ts). */
function runKind(bound: BoundPlan): SpanKind {
  return runPeer(bound)?.peer === undefined ? 'internal' : 'client';
}

/** What the `run` span says of the statements (their text, never the values bound to them) and of the database. */
function runAttributes(bound: BoundPlan): SpanAttributes {
  const texts: string[] = [];
  const sources = new Set<string>();
  for (const step of bound) {
    if (step.kind === 'read') {
      texts.push(step.statement.text);
      sources.add(step.step.source);
    } else if (step.kind === 'write') {
      for (const t of step.transactions) {
        for (const st of t.statements) texts.push(st.text);
        sources.add(t.fields[0]?.source ?? '');
      }
    }
  }
  const text = texts.join(';\n');
  const attributes: Record<string, string | number> = {
    'db.query.text': text.length > MAX_TRACED_SQL ? text.slice(0, MAX_TRACED_SQL) : text,
    'engine.statements': texts.length,
    'engine.sources': [...sources].join(','),
  };
  const peer = runPeer(bound)?.peer;
  if (peer !== undefined) {
    attributes['db.system.name'] = peer.system;
    // The name before semantic conventions 1.26, which older service-graph processors read.
    attributes['db.system'] = peer.system;
    if (peer.namespace !== undefined) attributes['db.namespace'] = peer.namespace;
    if (peer.address !== undefined) attributes['server.address'] = peer.address;
    if (peer.port !== undefined) attributes['server.port'] = peer.port;
  }
  return attributes;
}
