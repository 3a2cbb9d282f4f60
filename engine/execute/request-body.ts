/** The GraphQL-over-HTTP body `{query, variables?, operationName?}`, checked. */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** A checked GraphQL request. */
export interface GraphqlRequest {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly operationName: string | null;
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks a request body; malformed input is a `parse-failed` error with its path. */
export function parseGraphqlRequest(body: unknown, path = '$'): GraphqlRequest {
  if (!isObject(body)) throw new EngineError(ErrorCode.ParseFailed, 'expected an object for a GraphQL request', { path });
  const extensions = body['extensions'];
  if (isObject(extensions) && extensions['persistedQuery'] !== undefined) {
    // v2 compat: Automatic Persisted Queries (Apollo's `extensions.persistedQuery`) are refused
    // with this answer, which tells Apollo clients to send the full query from then on.
    throw new EngineError(ErrorCode.NotSupported, 'Automatic Persisted Queries is not enabled', { path });
  }
  const query = body['query'];
  if (typeof query !== 'string') {
    throw new EngineError(ErrorCode.ParseFailed, 'the key "query" was not found or is not a string', { path });
  }
  const variables = body['variables'];
  if (variables !== undefined && variables !== null && !isObject(variables)) {
    throw new EngineError(ErrorCode.ParseFailed, 'expected an object for "variables"', { path: `${path}.variables` });
  }
  const operationName = body['operationName'];
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw new EngineError(ErrorCode.ParseFailed, 'expected a string for "operationName"', { path: `${path}.operationName` });
  }
  return {
    query,
    variables: isObject(variables) ? variables : EMPTY,
    operationName: typeof operationName === 'string' ? operationName : null,
  };
}
