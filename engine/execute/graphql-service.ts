/**
 * The GraphQL API: one request from body to response text.
 *
 *   plan-cache hit? ─no─▶ role schema (memoized) ▶ parse ▶ validate ▶ toIr ▶ plan
 *         │yes                                                          │
 *         ▼                                                             ▼
 *   coerce variables ▶ bind ▶ run (one statement per source) ▶ splice `{"data":…}`
 *
 * See architecture.md, "One GraphQL request", and Note [Plan cache keys].
 */
import { getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type OperationTypeNode } from 'graphql';
import type { RunOptions } from '../backends/backend.ts';
import type { RequestContext } from '../request-context.ts';
import type { ApiResponse, ExecuteOptions, GraphqlApi } from '../api/contract.ts';
import type { CatalogRef } from '../catalog/snapshot.ts';
import type { Logger } from '../logger.ts';
import { buildSession, ADMIN_ROLE, roleViewKey, type Session } from '../auth/session.ts';
import { backendFor } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, errorDetails, isEngineError } from '../errors/engine-error.ts';
import { renameTypenames, toDefaultNames, variablesToDefaultNames } from '../graphql/schema/naming-convention.ts';
import { SchemaCache } from '../graphql/schema/schema-cache.ts';
import { toIrOperation } from '../graphql/to-ir/operation.ts';
import { bindStatement } from './bind.ts';
import { renderExplain } from './explain-plan.ts';
import { runMutationPlan } from './mutation-plan.ts';
import { buildPlan, type Plan } from './plan.ts';
import { ApiLimitsPolicy, limitExceeded, RateLimiter, rateLimitExceeded, type RoleLimits } from './api-limits.ts';
import { measureOperation, type OperationCost } from './operation-cost.ts';
import { entryBytes, PlanCache, structuralKey, type OperationEntry } from './plan-cache.ts';
import { prepareOperation } from './validate.ts';
import { parseGraphqlRequest, type GraphqlRequest } from './request-body.ts';
import { dataResponse, spliceObjects } from './response.ts';
import { apiErrorBody, graphqlErrorBody } from '../errors/wire-body.ts';
import { runStatement } from './run.ts';

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
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/** GraphQL over HTTP: GET must not change anything, so a mutation there is 405 (the whole request). */
const MUTATION_OVER_GET = new EngineError(ErrorCode.MethodNotAllowed, 'mutations cannot be sent with GET; use POST', { path: '$', status: 405 });

/** What a request runs, and what to cache once it ran without error (null on a cache hit). */
interface Planned {
  readonly plan: Plan;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly kind: OperationTypeNode;
  readonly pending: { readonly version: number; readonly key: string; readonly entry: OperationEntry; readonly planKey: string } | null;
}

function coerceVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  let r: ReturnType<typeof getVariableValues>;
  try {
    r = getVariableValues(schema, operation.variableDefinitions ?? [], inputs);
  } catch (e) {
    // graphql-js coerces recursively: see Note [Depth bounds] in graphql/to-ir/depth.ts.
    if (e instanceof RangeError) throw new EngineError(ErrorCode.ValidationFailed, 'the variables are nested too deeply', { path: '$.variableValues' });
    throw e;
  }
  // graphql-js reports a throw while coercing (a stack overflow) as one of the errors.
  if (r.errors?.some((e: unknown) => e instanceof RangeError || (e instanceof Error && 'originalError' in e && e.originalError instanceof RangeError)) === true) {
    throw new EngineError(ErrorCode.ValidationFailed, 'the variables are nested too deeply', { path: '$.variableValues' });
  }
  if (r.errors !== undefined) {
    throw new EngineError(ErrorCode.ValidationFailed, r.errors[0]?.message ?? 'invalid variables', { path: '$.variableValues' });
  }
  return r.coerced;
}

function asEngineError(e: unknown): EngineError {
  if (isEngineError(e)) return e;
  return new EngineError(ErrorCode.Unexpected, 'unexpected error', { internal: String(e), cause: e });
}

/** `opts` without its cancellation (see #run). */
function withoutCancel(opts: RunOptions | undefined): RunOptions | undefined {
  return opts === undefined || opts.timeoutMs === undefined || opts.timeoutMs === null ? undefined : { timeoutMs: opts.timeoutMs };
}

/** Implements /v1/graphql and /v1/graphql/explain over the catalog in force. */
export class GraphqlService implements GraphqlApi {
  readonly #catalogRef: CatalogRef;
  readonly #stringify: boolean;
  readonly #logger: Logger;
  readonly #schemas: SchemaCache;
  readonly #plans: PlanCache;
  readonly #fieldLimit: number;
  /** The API limits of the catalog in force (null: none set). */
  #limits: ApiLimitsPolicy | null = null;
  readonly #rates = new RateLimiter();

  constructor(catalogRef: CatalogRef, opts: GraphqlServiceOptions) {
    this.#catalogRef = catalogRef;
    this.#stringify = opts.stringifyNumericTypes;
    this.#logger = opts.logger;
    this.#plans = new PlanCache(opts.planCacheBytes ?? 128 * 1024 * 1024);
    this.#fieldLimit = opts.queryFieldLimit ?? 5000;
    this.#schemas = new SchemaCache({ inferFunctionPermissions: opts.inferFunctionPermissions ?? true }, (role, error) =>
      this.#logger.error('role schema could not be built', { role, error: errorDetails(error) }),
    );
    catalogRef.subscribe((c) => {
      this.#plans.clear();
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
  async execute(session: Session, body: unknown, options?: ExecuteOptions, ctx?: RequestContext): Promise<ApiResponse> {
    const readOnly = options?.readOnly === true;
    const limits = this.#limits === null ? null : this.#limits.forRole(session.role, session.isAdmin);
    if (limits !== null) {
      const refused = this.#refuseByRate(session, limits, ctx) ?? (Array.isArray(body) && limits.batch !== null && body.length > limits.batch ? limitExceeded('batch', limits.batch) : null);
      if (refused !== null) return { status: 200, jsonText: JSON.stringify(graphqlErrorBody(refused, session.isAdmin)) };
    }
    try {
      if (Array.isArray(body)) {
        const parts = await Promise.all(body.map((b) => this.#executeOne(session, b, readOnly, limits, ctx)));
        return { status: 200, jsonText: `[${parts.join(',')}]` };
      }
      return { status: 200, jsonText: await this.#executeOne(session, body, readOnly, limits, ctx) };
    } catch (e) {
      // Only a mutation in a read-only request gets here (see #executeOne).
      const err = asEngineError(e);
      return { status: err.status, jsonText: JSON.stringify(graphqlErrorBody(err, session.isAdmin)) };
    }
  }

  /** Cached operations and their estimated bytes (Note [Plan cache bytes]). */
  get planCacheStats(): { readonly entries: number; readonly bytes: number } {
    return { entries: this.#plans.size, bytes: this.#plans.bytes };
  }

  /** A rate-limit refusal, or null (Note [API limits]). */
  #refuseByRate(session: Session, limits: RoleLimits, ctx: RequestContext | undefined): EngineError | null {
    const rate = limits.rate;
    if (rate === null) return null;
    let key = session.role;
    if (rate.by === 'ip') key += `\u0000${ctx?.clientAddress ?? ''}`;
    else if (rate.by !== null) for (const name of rate.by) key += `\u0000${session.variables[name] ?? ''}`;
    return this.#rates.take(key, rate.max, Date.now()) ? null : rateLimitExceeded(rate.max);
  }

  async #executeOne(session: Session, body: unknown, readOnly: boolean, limits: RoleLimits | null, ctx: RequestContext | undefined): Promise<string> {
    try {
      const req = parseGraphqlRequest(body);
      const { plan, variables, kind, pending } = this.#planFor(session, req, limits);
      if (readOnly && kind === 'mutation') throw MUTATION_OVER_GET;
      const timeoutMs = limits === null ? null : limits.timeoutMs;
      const opts: RunOptions | undefined = ctx === undefined ? (timeoutMs === null ? undefined : { timeoutMs }) : { cancel: ctx, timeoutMs };
      const text = await this.#run(plan, variables, session, opts);
      // Only operations that ran without error are cached (Note [Plan cache bytes]).
      if (pending !== null) this.#plans.store(pending.version, pending.key, pending.entry, pending.planKey, plan);
      return text;
    } catch (e) {
      if (e === MUTATION_OVER_GET) throw e;
      const err = asEngineError(e);
      if (err.code === ErrorCode.Unexpected) this.#logger.error('graphql request failed', { error: errorDetails(err) });
      return JSON.stringify(graphqlErrorBody(err, session.isAdmin));
    }
  }

  async #run(plan: Plan, variables: Readonly<Record<string, unknown>>, session: Session, opts: RunOptions | undefined): Promise<string> {
    if (plan.staticData !== null) return dataResponse(plan.staticData);
    if (plan.mutation !== null) return dataResponse(await runMutationPlan(plan.mutation, variables, session, opts));
    const stmts = plan.statements;
    if (stmts.length === 1) {
      const s = stmts[0];
      if (s !== undefined) {
        const text = await runStatement(s.connection, bindStatement(s.sql, variables, session), opts);
        return dataResponse(text ?? 'null');
      }
    }
    // Statements of several sources run side by side; a cancellation watches one statement at a
    // time, so only the first of them is cancelled with the request.
    const texts = await Promise.all(
      stmts.map(async (s, i) => (await runStatement(s.connection, bindStatement(s.sql, variables, session), i === 0 ? opts : withoutCancel(opts))) ?? '{}'),
    );
    return dataResponse(spliceObjects(texts, plan.needsReorder ? plan.order : null));
  }

  /** Refuses an operation over the field bound or the role's depth and node limits (Note [Operation cost]). */
  #checkCost(document: DocumentNode, operation: OperationDefinitionNode, limits: RoleLimits | null): OperationCost {
    const cost = measureOperation(document, operation);
    if (this.#fieldLimit > 0 && cost.fields > this.#fieldLimit) throw limitExceeded('field', this.#fieldLimit);
    if (limits !== null) {
      if (limits.depth !== null && !cost.introspection && cost.depth > limits.depth) throw limitExceeded('depth', limits.depth);
      if (limits.nodes !== null && cost.nodes > limits.nodes) throw limitExceeded('node', limits.nodes);
    }
    return cost;
  }

  /** The plan of a request: cached, or built (parse, validate, toIr, compile) on a miss. */
  #planFor(session: Session, req: GraphqlRequest, limits: RoleLimits | null): Planned {
    const catalog = this.#catalogRef.current;
    // Backend-only requests get their own schema and plans (Note [Plan cache keys]).
    const view = roleViewKey(session);
    const backendOnly = session.backendOnly === true;
    const key = PlanCache.key(view, req.operationName, req.query);
    let entry = this.#plans.get(catalog.version, key);
    if (entry === undefined) {
      const role = this.#schemas.get(catalog, session.role, session.isAdmin, backendOnly);
      let cost: OperationCost | undefined;
      const { document, operation } = prepareOperation(role.schema, req.query, req.operationName, (d, o) => {
        cost = this.#checkCost(d, o, limits);
      });
      // See Note [Renamed schema] in graphql/schema/naming-convention.ts.
      const inner = role.naming === undefined ? { document, operation } : toDefaultNames(role.naming, document, operation);
      entry = {
        schema: role.naming?.original ?? role.schema,
        document: inner.document,
        operation: inner.operation,
        ...(role.naming === undefined ? {} : { naming: { convention: role.naming, clientOperation: operation } }),
        hasVariables: (operation.variableDefinitions?.length ?? 0) > 0,
        structural: [],
        shaped: [],
        plans: new Map(),
        cost: cost ?? measureOperation(inner.document, inner.operation),
        bytes: entryBytes(key, req.query),
      };
    }
    const naming = entry.naming;
    const variables = !entry.hasVariables
      ? NO_VARIABLES
      : naming === undefined
        ? coerceVariables(entry.schema, entry.operation, req.variables)
        : variablesToDefaultNames(naming.convention, naming.clientOperation, coerceVariables(naming.convention.renamed, naming.clientOperation, req.variables));
    const kind = entry.operation.operation;
    const planKey = structuralKey(entry, variables);
    const cached = entry.plans.get(planKey);
    if (cached !== undefined) return { plan: cached, variables, kind, pending: null };
    const op = toIrOperation({
      schema: entry.schema,
      // The role's own permissions: its schema may be shared with roles of equal shape (Note [Shared role types]).
      access: this.#schemas.get(catalog, session.role, session.isAdmin, backendOnly).access,
      document: entry.document,
      operation: entry.operation,
      variables,
      stringifyNumericTypes: this.#stringify,
      ...(naming === undefined ? {} : { introspectionSchema: naming.convention.renamed }),
    });
    for (const [name, use] of op.variableUse) {
      if (use === 'structural' && !entry.structural.includes(name)) entry.structural.push(name);
      if (use === 'shape' && !entry.shaped.includes(name)) entry.shaped.push(name);
    }
    const plan = buildPlan(naming === undefined ? op.fields : renameTypenames(op.fields, naming.convention.typeNames), catalog);
    // The key again: translating may have found more structural variables.
    return { plan, variables, kind, pending: { version: catalog.version, key, entry, planKey: structuralKey(entry, variables) } };
  }

  /** `/v1/graphql/explain`: the SQL and Postgres plan of each database root field. */
  async explain(body: unknown): Promise<ApiResponse> {
    try {
      const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const req = parseGraphqlRequest(b['query'], '$.query');
      const user = typeof b['user'] === 'object' && b['user'] !== null ? (b['user'] as Record<string, unknown>) : {};
      const vars: Record<string, string> = {};
      for (const [k, v] of Object.entries(user)) vars[k.toLowerCase()] = typeof v === 'string' ? v : JSON.stringify(v);
      const session = buildSession(vars['x-engine-role'] ?? ADMIN_ROLE, vars);
      const { plan, variables } = this.#planFor(session, req, this.#limits?.forRole(session.role, session.isAdmin) ?? null);
      const catalog = this.#catalogRef.current;
      // `prepared_arguments` (an addition to v2's `{field, sql, plan}`) makes `sql` runnable as is.
      const out: Array<{ field: string; sql: string; plan: string[]; prepared_arguments: readonly unknown[] }> = [];
      for (const f of plan.fields) {
        if (f.kind === 'static' || f.kind === 'mutation') continue;
        const source = catalog.sources.get(f.source);
        if (source === undefined) continue;
        const compile = backendFor(source.kind).compile;
        const sql = compile.query([f]);
        const bound = bindStatement(compile.explain(sql), variables, session);
        const text = await runStatement(source.connection, bound);
        out.push({ field: f.alias, sql: sql.text, plan: text === null ? [] : renderExplain(text), prepared_arguments: bound.values });
      }
      return { status: 200, json: out };
    } catch (e) {
      const err = asEngineError(e);
      return { status: err.status === 500 ? 500 : 400, json: apiErrorBody(err, false) };
    }
  }
}
