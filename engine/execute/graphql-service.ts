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
import { getVariableValues, type GraphQLSchema, type OperationDefinitionNode, type OperationTypeNode } from 'graphql';
import type { ApiResponse, ExecuteOptions, GraphqlApi } from '../server/deps.ts';
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
import { PlanCache, storePlan, structuralKey } from './plan-cache.ts';
import { prepareOperation } from './prepare.ts';
import { parseGraphqlRequest, type GraphqlRequest } from './request-body.ts';
import { dataResponse, errorResponse, spliceObjects } from './response.ts';
import { runStatement } from './run.ts';

/** Options of {@link GraphqlService}. */
export interface GraphqlServiceOptions {
  readonly stringifyNumericTypes: boolean;
  readonly logger: Logger;
  /** Most cached operations (default 4096). */
  readonly planCacheSize?: number;
  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (default true). */
  readonly inferFunctionPermissions?: boolean;
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/** GraphQL over HTTP: GET must not change anything, so a mutation there is 405 (the whole request). */
const MUTATION_OVER_GET = new EngineError(ErrorCode.MethodNotAllowed, 'mutations cannot be sent with GET; use POST', { path: '$', status: 405 });

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

/** Implements /v1/graphql and /v1/graphql/explain over the catalog in force. */
export class GraphqlService implements GraphqlApi {
  readonly #catalogRef: CatalogRef;
  readonly #stringify: boolean;
  readonly #logger: Logger;
  readonly #schemas: SchemaCache;
  readonly #plans: PlanCache;

  constructor(catalogRef: CatalogRef, opts: GraphqlServiceOptions) {
    this.#catalogRef = catalogRef;
    this.#stringify = opts.stringifyNumericTypes;
    this.#logger = opts.logger;
    this.#plans = new PlanCache(opts.planCacheSize ?? 4096);
    this.#schemas = new SchemaCache({ inferFunctionPermissions: opts.inferFunctionPermissions ?? true }, (role, error) =>
      this.#logger.error('role schema could not be built', { role, error: errorDetails(error) }),
    );
    catalogRef.subscribe((c) => {
      this.#plans.clear();
      this.#schemas.warm(c);
    });
    this.#schemas.warm(catalogRef.current);
  }

  /** Executes one request body (or a batch: a list of them). Errors come back with status 200. */
  async execute(session: Session, body: unknown, options?: ExecuteOptions): Promise<ApiResponse> {
    const readOnly = options?.readOnly === true;
    try {
      if (Array.isArray(body)) {
        const parts = await Promise.all(body.map((b) => this.#executeOne(session, b, readOnly)));
        return { status: 200, jsonText: `[${parts.join(',')}]` };
      }
      return { status: 200, jsonText: await this.#executeOne(session, body, readOnly) };
    } catch (e) {
      // Only a mutation in a read-only request gets here (see #executeOne).
      const err = asEngineError(e);
      return { status: err.status, jsonText: JSON.stringify(errorResponse(err, session.isAdmin)) };
    }
  }

  async #executeOne(session: Session, body: unknown, readOnly: boolean): Promise<string> {
    try {
      const req = parseGraphqlRequest(body);
      const { plan, variables, kind } = this.#planFor(session, req);
      if (readOnly && kind === 'mutation') throw MUTATION_OVER_GET;
      return await this.#run(plan, variables, session);
    } catch (e) {
      if (e === MUTATION_OVER_GET) throw e;
      const err = asEngineError(e);
      if (err.code === ErrorCode.Unexpected) this.#logger.error('graphql request failed', { error: errorDetails(err) });
      return JSON.stringify(errorResponse(err, session.isAdmin));
    }
  }

  async #run(plan: Plan, variables: Readonly<Record<string, unknown>>, session: Session): Promise<string> {
    if (plan.staticData !== null) return dataResponse(plan.staticData);
    if (plan.mutation !== null) return dataResponse(await runMutationPlan(plan.mutation, variables, session));
    const stmts = plan.statements;
    if (stmts.length === 1) {
      const s = stmts[0];
      if (s !== undefined) {
        const text = await runStatement(s.connection, bindStatement(s.sql, variables, session));
        return dataResponse(text ?? 'null');
      }
    }
    const texts = await Promise.all(
      stmts.map(async (s) => (await runStatement(s.connection, bindStatement(s.sql, variables, session))) ?? '{}'),
    );
    return dataResponse(spliceObjects(texts, plan.needsReorder ? plan.order : null));
  }

  /** The plan of a request: cached, or built (parse, validate, toIr, compile) on a miss. */
  #planFor(session: Session, req: GraphqlRequest): { plan: Plan; variables: Readonly<Record<string, unknown>>; kind: OperationTypeNode } {
    const catalog = this.#catalogRef.current;
    // Backend-only requests get their own schema and plans (Note [Plan cache keys]).
    const view = roleViewKey(session);
    const backendOnly = session.backendOnly === true;
    let entry = this.#plans.get(catalog.version, view, req.operationName, req.query);
    if (entry === undefined) {
      const role = this.#schemas.get(catalog, session.role, session.isAdmin, backendOnly);
      const { document, operation } = prepareOperation(role.schema, req.query, req.operationName);
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
      };
      this.#plans.set(catalog.version, view, req.operationName, req.query, entry);
    }
    const naming = entry.naming;
    const variables = !entry.hasVariables
      ? NO_VARIABLES
      : naming === undefined
        ? coerceVariables(entry.schema, entry.operation, req.variables)
        : variablesToDefaultNames(naming.convention, naming.clientOperation, coerceVariables(naming.convention.renamed, naming.clientOperation, req.variables));
    const kind = entry.operation.operation;
    const cached = entry.plans.get(structuralKey(entry, variables));
    if (cached !== undefined) return { plan: cached, variables, kind };
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
    storePlan(entry, structuralKey(entry, variables), plan);
    return { plan, variables, kind };
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
      const { plan, variables } = this.#planFor(session, req);
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
      return { status: err.status === 500 ? 500 : 400, json: { path: err.path, error: err.message, code: err.code } };
    }
  }
}
