/**
 * The named steps of one GraphQL request, for every caller: the HTTP handler
 * (graphql-service.ts, behind the fast path and the fastify route), explain,
 * the golden tests, and the coming REST endpoints and WebSocket.
 *
 * Note [Request steps]
 * A request is eight named steps, each an exported function of execute/:
 *
 *   request body
 *        │
 *        ▼
 *      allow ──────────── rate and batch limits of the role (every request)
 *        │
 *        ▼
 *   plan cache: entry for (catalog version, role view, operationName, query)?
 *        │ miss                                              │ hit
 *        ▼                                                   │
 *   role schema (memoized per role view)                     │
 *        ▼                                                   │
 *      parse ─▶ validate ──── field bound, API depth/node    │
 *        │        limits, then graphql-js's rules            │
 *        ▼                                                   │
 *   entry = the operation as the role schema reads it ◀──────┘
 *        │      (graphql/role-operation.ts)
 *        ▼
 *      allow ──────────── a mutation sent with GET: 405
 *        ▼
 *   coerce variables ─▶ plan for the structural variables' values?
 *        │ miss                                  │ hit
 *        ▼                                       │
 *      toIr ─▶ plan ── typed steps: read,        │
 *        │       write, static (Note [Plan steps])
 *        ▼                                       │
 *      bind ◀────────────────────────────────────┘
 *        │   parameter slots ← variables, session
 *        ▼
 *      run ───────────── SQL per step; cancelled when the client leaves
 *        ▼
 *    respond ─────────── `{"data":…}`: the steps' JSON text spliced, parsed
 *                        only when the plan needs post-processing
 *
 * - allow (allow.ts): rate and batch limits of the role (every request), the
 *   allow-list (on a miss, right after parse: a hit was allowed when it was
 *   cached), and a mutation over GET refused (once the operation is known).
 * - parse, validate (validate.ts): on a plan-cache miss; validate holds the
 *   size bounds (field bound, API depth and node limits) and graphql-js's rules.
 * - toIr (graphql/role-operation.ts): the operation as its role's schema
 *   reads it; the naming convention is translated there, so no step of
 *   execute/ knows about it (Note [Renamed schema]).
 * - plan (plan.ts): IR → typed steps, compiled by the sources' backends.
 * - bind (bind.ts), run (run.ts), respond (response.ts): every request.
 * A plan-cache hit runs allow, coerce, bind, run and respond only: the
 * per-request work stays parse-free (Note [Plan cache keys]).
 * Each step is a timing span when tracing (`steps?.begin('parse')`: a
 * StepSpans of observability/tracing.ts, null when tracing is off, so the
 * cost off is one null check per step; Note [Tracing off costs a null check]).
 * Variable coercion and the plan lookup fall between steps, in the
 * operation's own span.
 * `planRequest` runs the steps up to `plan` (with or without a cache);
 * GraphqlService and explain call it, and the golden tests call `planOne`
 * (a catalog, a session and query text → the plan and its SQL) and may call
 * `executeOne` (→ the SQL and the response), so they cannot drift apart.
 * Cost of the split on a plan-cache hit (old and new builds alternated on
 * the loaded two-core machine): `node test/bench/request-path.ts <url>
 * AlbumByPK admin 8000 2` on sf1, engine user CPU per request in the warm
 * round, was 71.3/69.9/59.0 µs before and 52.3/47.6/60.1 after in one
 * session, 55.1/50.3/47.7 before and 61.8/55.6/51.7 after in another: the
 * sign of the difference changes with the session. In process, with the
 * database replaced by a constant answer (a hit then costs about 2 µs), the
 * best of three rounds was 1.92-2.66 µs before and 2.09-2.81 after: the few
 * objects the steps hand each other (the bound steps, the results) cost at
 * most a few tenths of a µs, below what this machine resolves.
 */
import type { RunOptions } from '../backends/backend.ts';
import type { CompiledSql } from '../backends/sql/fragment.ts';
import type { Catalog } from '../catalog/types.ts';
import type { OperationTypeNode } from 'graphql';
import type * as ir from '../ir/index.ts';
import { roleViewKey, type Session } from '../auth/session.ts';
import { isEngineError, EngineError } from '../errors/engine-error.ts';
import { ErrorCode } from '../errors/codes.ts';
import { roleOperation, type RoleOperation, type ToIrInput } from '../graphql/role-operation.ts';
import type { OperationIr } from '../graphql/to-ir/operation.ts';
import { SchemaCache } from '../graphql/schema/schema-cache.ts';
import { allowDocument, allowOperation, allowRequest, MUTATION_OVER_GET, QUERY_NOT_ALLOWED } from './allow.ts';
import { bindPlan } from './bind.ts';
import { buildPlan, planStatements, type Plan } from './plan.ts';
import { entryBytes, PlanCache, structuralKey, type OperationEntry } from './plan-cache.ts';
import type { GraphqlRequest } from './request-body.ts';
import { respond } from './response.ts';
import { graphqlErrorBody } from '../errors/wire-body.ts';
import { runAnswerByteString, runPlan } from './run.ts';
import type { RoleLimits } from './api-limits.ts';
import { checkFragmentCycles } from './fragment-cycles.ts';
import { scalarCoercer } from './scalar-variables.ts';
import { parse, validate } from './validate.ts';
import type { StepSpans } from '../observability/tracing.ts';

export { allowDocument, allowOperation, allowRequest, MUTATION_OVER_GET, QUERY_NOT_ALLOWED, parse, validate, respond };
/** The `plan` step: IR root fields → a plan of typed steps. */
export const plan = buildPlan;
/** The `bind` step. */
export const bind = bindPlan;
/** The `run` step. */
export const run = runPlan;
/** The `run` step of a lone read answered as a byte string (Note [Answer bytes]); undefined for other plans. */
export const runByteString = runAnswerByteString;

/** The `toIr` step: the operation as IR, in the role schema's terms (graphql/role-operation.ts). */
export function toIr(op: RoleOperation, input: ToIrInput): OperationIr {
  return op.toIr(input);
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/** What the steps up to `plan` share across requests (made once by the caller). */
export interface PlanEnv {
  readonly schemas: SchemaCache;
  readonly stringifyNumericTypes: boolean;
  /** validate's field bound (0: none; Note [Operation cost]). */
  readonly fieldLimit: number;
  /** The plan cache (none: every request is a miss). */
  readonly cache?: PlanCache;
  /** Take the variables as given instead of coercing them (the golden cases were recorded so). */
  readonly uncoerced?: boolean;
  /** The allow-list is enforced (ENGINE_GRAPHQL_ENABLE_ALLOWLIST): `allow` checks the document on a miss. */
  readonly allowlist?: boolean;
}

/** One request's own inputs to the steps up to `plan`. */
export interface PlanInput {
  readonly catalog: Catalog;
  readonly session: Session;
  readonly request: GraphqlRequest;
  /** The role's API limits (validate's depth and node bounds); null: none. */
  readonly limits: RoleLimits | null;
  /** A GET request: a mutation is refused (allow). */
  readonly readOnly: boolean;
  /** The operation's step spans when tracing, else null or absent (Note [Tracing off costs a null check]). */
  readonly steps?: StepSpans | null;
  /** Sent over a WebSocket: subscriptions are allowed (allow). */
  readonly socket?: boolean;
  /**
   * Rewrites the IR's database root fields before `plan` (v1 data operations of /v1/query carry
   * what their GraphQL rewrite cannot say: Note [Legacy DML]). Such a request is never cached.
   */
  readonly patchIr?: (f: ir.OperationField) => ir.OperationField;
}

/** What a request runs, and what to cache once it ran without error (null on a cache hit or without a cache). */
export interface PlannedRequest {
  readonly plan: Plan;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly kind: OperationTypeNode;
  /** The plan's key among the operation's plans (its structural variables' values): with the plan-cache key, what requests sharing this plan have in common. */
  readonly planKey: string;
  readonly pending: { readonly version: number; readonly key: string; readonly entry: OperationEntry; readonly planKey: string } | null;
}

/** The steps up to `plan`: cached, or parse, validate, toIr and plan on a miss (Note [Request steps]). */
export function planRequest(env: PlanEnv, input: PlanInput): PlannedRequest {
  const { catalog, session, request: req } = input;
  const steps = input.steps ?? null;
  // A patched IR is not what the query text says: never cached.
  const cache = input.patchIr === undefined ? env.cache : undefined;
  // Backend-only requests get their own schema and plans (Note [Plan cache keys]).
  const backendOnly = session.backendOnly === true;
  const roleView = roleViewKey(session);
  // The entry's key is built only where it is needed: a miss, or a new plan to store (Note [Repeated operation lookups]).
  let entry = cache === undefined ? undefined : cache.find(catalog.version, roleView, req.operationName, req.query);
  if (entry === undefined) {
    const role = env.schemas.get(catalog, session.role, session.isAdmin, backendOnly);
    steps?.begin('parse');
    const parsed = parse(req.query);
    // The allow-list (the `allow` step's document half) sits between parse and validate, as in v2.
    if (env.allowlist === true) allowDocument(catalog.queryCollections, session, parsed);
    steps?.begin('validate');
    checkFragmentCycles(parsed, req.operationName);
    const { document, operation, cost } = validate(role.schema, parsed, req.operationName, { fieldLimit: env.fieldLimit, limits: input.limits });
    steps?.end();
    const roleOp = roleOperation(role, document, operation);
    entry = {
      op: roleOp,
      structural: [],
      shaped: [],
      plans: new Map(),
      cost,
      bytes: entryBytes(PlanCache.key(roleView, req.operationName, req.query), req.query),
      scalars: scalarCoercer(roleOp.schema, roleOp.operation),
    };
  }
  const op = entry.op;
  const kind = op.kind;
  if (steps !== null) {
    steps.parent.setAttribute('graphql.operation.type', kind);
    const name = op.operation.name?.value;
    if (name !== undefined) steps.parent.setAttribute('graphql.operation.name', name);
    steps.begin('allow');
  }
  allowOperation(kind, input.readOnly, input.socket === true);
  steps?.end();
  // Built-in scalars are checked at once; anything else, or a value they refuse, takes graphql-js's path (Note [Scalar variables at once]).
  const variables = !op.hasVariables
    ? NO_VARIABLES
    : env.uncoerced === true
      ? req.variables
      : ((entry.scalars === undefined || entry.scalars === null ? null : entry.scalars(req.variables)) ?? op.coerceVariables(req.variables));
  const planKey = structuralKey(entry, variables);
  const cached = entry.plans.get(planKey);
  if (cached !== undefined) return { plan: cached, variables, kind, planKey, pending: null };
  steps?.begin('toIr');
  const ir = toIr(op, {
    // The role's own permissions: its schema may be shared with roles of equal shape (Note [Shared role types]).
    access: env.schemas.get(catalog, session.role, session.isAdmin, backendOnly).access,
    variables,
    stringifyNumericTypes: env.stringifyNumericTypes,
    introspection: session.isAdmin || catalog.introspectionDisabled?.has(session.role) !== true,
  });
  for (const [name, use] of ir.variableUse) {
    if (use === 'structural' && !entry.structural.includes(name)) entry.structural.push(name);
    if (use === 'shape' && !entry.shaped.includes(name)) entry.shaped.push(name);
  }
  steps?.begin('plan');
  const patch = input.patchIr;
  const planned = plan(patch === undefined ? ir.fields : ir.fields.map(patch), catalog, ir.joins);
  steps?.end();
  // The key again: translating may have found more structural variables.
  const finalKey = structuralKey(entry, variables);
  if (cache === undefined) return { plan: planned, variables, kind, planKey: finalKey, pending: null };
  const key = PlanCache.key(roleView, req.operationName, req.query);
  return { plan: planned, variables, kind, planKey: finalKey, pending: { version: catalog.version, key, entry, planKey: finalKey } };
}

/** One request for {@link planOne} and {@link executeOne} (golden tests, tools). */
export interface OneRequest {
  readonly catalog: Catalog;
  readonly session: Session;
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>>;
  readonly operationName?: string | null;
  readonly stringifyNumericTypes?: boolean;
  /** Role schemas to reuse across calls (a new cache otherwise). */
  readonly schemas?: SchemaCache;
  /** See PlanEnv.uncoerced. */
  readonly uncoerced?: boolean;
}

function inputsOf(r: OneRequest): { env: PlanEnv; input: PlanInput } {
  return {
    env: { schemas: r.schemas ?? new SchemaCache(), stringifyNumericTypes: r.stringifyNumericTypes ?? false, fieldLimit: 0, uncoerced: r.uncoerced === true },
    input: {
      catalog: r.catalog,
      session: r.session,
      request: { query: r.query, variables: r.variables ?? NO_VARIABLES, operationName: r.operationName ?? null },
      limits: null,
      readOnly: false,
    },
  };
}

/** The plan of one request, without a plan cache or limits, and its statements in the order they run. Throws EngineError. */
export function planOne(r: OneRequest): { readonly plan: Plan; readonly sql: readonly CompiledSql[] } {
  const { env, input } = inputsOf(r);
  const planned = planRequest(env, input).plan;
  return { plan: planned, sql: planStatements(planned) };
}

/** One request through every step on the catalog's connections: its statements and the response text (errors in v2 shape). */
export async function executeOne(r: OneRequest, opts?: RunOptions): Promise<{ readonly sql: readonly CompiledSql[]; readonly response: string }> {
  const { env, input } = inputsOf(r);
  let sql: readonly CompiledSql[] = [];
  try {
    const { plan: planned, variables } = planRequest(env, input);
    sql = planStatements(planned);
    return { sql, response: respond(planned, await run(bind(planned, variables, r.session), opts)) };
  } catch (e) {
    const err = isEngineError(e) ? e : new EngineError(ErrorCode.Unexpected, 'unexpected error', { internal: String(e), cause: e });
    return { sql, response: JSON.stringify(graphqlErrorBody(err, r.session.isAdmin)) };
  }
}
