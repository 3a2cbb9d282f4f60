/**
 * The request path the golden cases run, from GraphQL text to a plan, without HTTP or a
 * database: the named request steps every caller shares (parse → validate → toIr → plan;
 * Note [Request steps] in engine/execute/request-steps.ts), through `planOne`.
 */
import { buildSession } from '../../engine/auth/session.ts';
import type { Catalog } from '../../engine/catalog/types.ts';
import type { Plan } from '../../engine/execute/plan.ts';
import { planOne } from '../../engine/execute/request-steps.ts';
import type { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';

/** One GraphQL request as a golden case states it. */
export interface PipelineRequest {
  readonly query: string;
  readonly operationName?: string | null;
  /** Defaults to `admin`. */
  readonly role?: string;
  readonly variables?: Record<string, unknown>;
  readonly stringifyNumericTypes?: boolean;
  /** Planned against the Relay schema of /v1beta1/relay (the caller passes that SchemaCache). */
  readonly relay?: boolean;
}

/**
 * Plans `request` on `catalog`; throws the EngineError a client would see. The case's
 * variables are taken as given, not coerced: the expected SQL was recorded so.
 */
export function planRequest(schemas: SchemaCache, catalog: Catalog, request: PipelineRequest): Plan {
  return planOne({
    catalog,
    schemas,
    session: buildSession(request.role ?? 'admin', {}),
    query: request.query,
    operationName: request.operationName ?? null,
    variables: request.variables ?? {},
    stringifyNumericTypes: request.stringifyNumericTypes ?? false,
    uncoerced: true,
  }).plan;
}
