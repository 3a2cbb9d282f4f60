/**
 * The request path the golden cases run, from GraphQL text to a plan, without HTTP or a
 * database: parse and validate → to IR → plan. It calls today's functions of engine/execute/
 * and engine/graphql/to-ir/; when the named request steps of issue 13.2 land, this is the one
 * function that switches to them.
 */
import type { Catalog } from '../../engine/catalog/types.ts';
import { buildPlan, type Plan } from '../../engine/execute/plan.ts';
import { prepareOperation } from '../../engine/execute/validate.ts';
import type { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { toIrOperation } from '../../engine/graphql/to-ir/operation.ts';

/** One GraphQL request as a golden case states it. */
export interface PipelineRequest {
  readonly query: string;
  readonly operationName?: string | null;
  /** Defaults to `admin`. */
  readonly role?: string;
  readonly variables?: Record<string, unknown>;
  readonly stringifyNumericTypes?: boolean;
}

/** Plans `request` on `catalog`; throws the EngineError a client would see. */
export function planRequest(schemas: SchemaCache, catalog: Catalog, request: PipelineRequest): Plan {
  const role = request.role ?? 'admin';
  const { schema, access } = schemas.get(catalog, role, role === 'admin');
  const { document, operation } = prepareOperation(schema, request.query, request.operationName ?? null);
  const op = toIrOperation({
    schema,
    access,
    document,
    operation,
    variables: request.variables ?? {},
    stringifyNumericTypes: request.stringifyNumericTypes ?? false,
  });
  return buildPlan(op.fields, catalog);
}
