/** The GraphQL-over-HTTP body `{query, variables?, operationName?}`, checked. */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { isSha256Hex, sha256Hex, type PersistedQueries } from './persisted-queries.ts';

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

/**
 * The query text of a request with `extensions.persistedQuery` (Note [Automatic persisted
 * queries]); without a store, the answer that turns the client's persisted-query link off.
 */
function persistedText(persisted: unknown, query: unknown, store: PersistedQueries | null, path: string): string {
  if (store === null) throw new EngineError(ErrorCode.NotSupported, 'PersistedQueryNotSupported', { path });
  const at = `${path}.extensions.persistedQuery`;
  if (!isObject(persisted) || persisted['version'] !== 1) {
    throw new EngineError(ErrorCode.ParseFailed, 'persistedQuery needs "version": 1 and a "sha256Hash"', { path: at });
  }
  const hash = persisted['sha256Hash'];
  if (typeof hash !== 'string' || !isSha256Hex(hash)) {
    throw new EngineError(ErrorCode.ParseFailed, 'expected a SHA-256 in lowercase hex for "sha256Hash"', { path: `${at}.sha256Hash` });
  }
  if (typeof query === 'string') {
    if (sha256Hex(query) !== hash)
      throw new EngineError(ErrorCode.PersistedQueryHashMismatch, 'provided sha does not match query', { path: `${at}.sha256Hash` });
    store.set(hash, query);
    return query;
  }
  const known = store.get(hash);
  if (known === undefined) throw new EngineError(ErrorCode.PersistedQueryNotFound, 'PersistedQueryNotFound', { path });
  return known;
}

/**
 * Checks a request body; malformed input is a `parse-failed` error with its path. With a
 * persisted-query store, `extensions.persistedQuery` is served from it (Note [Automatic persisted queries]).
 */
export function parseGraphqlRequest(body: unknown, path = '$', persisted: PersistedQueries | null = null): GraphqlRequest {
  if (!isObject(body)) throw new EngineError(ErrorCode.ParseFailed, 'expected an object for a GraphQL request', { path });
  const extensions = body['extensions'];
  const query =
    isObject(extensions) && extensions['persistedQuery'] !== undefined
      ? persistedText(extensions['persistedQuery'], body['query'], persisted, path)
      : body['query'];
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
