/**
 * Introspects a remote GraphQL server: the standard introspection query with
 * the configured headers, turned into a GraphQLSchema by graphql-js. A server
 * that is down, too slow, answers errors or garbage, or whose schema is not
 * valid gives a reason instead (the remote schema is then inconsistent).
 */
import { buildClientSchema, getIntrospectionQuery, validateSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { ErrorCode } from '../errors/codes.ts';
import type { RemoteEndpoint } from './definition.ts';
import { postGraphql, RemoteCallError } from './http-client.ts';

const QUERY = JSON.stringify({ query: getIntrospectionQuery({ inputValueDeprecation: false }), operationName: 'IntrospectionQuery' });

/**
 * Note [Remote schema error codes]
 * A remote schema that cannot be had makes the call that adds or changes it
 * fail, and v2's codes tell why: a definition that cannot be resolved (an
 * unset variable, a URL that is not one) is `invalid-params`
 * (validateRemoteSchemaDef), a schema that is not valid GraphQL (an interface
 * without fields or that an object implements wrongly, a union without
 * members or with a non-object member) is `remote-schema-error` (the remote
 * schema parsers of Hasura/GraphQL/Schema/Remote.hs; tests-py
 * queries/remote_schemas/add_remote_schema_with_*_err_*.yaml). So is every
 * failure of the introspection call itself (fetchRemoteSchema: execRemoteGQ
 * throws throwRemoteSchemaHttp, a 400 `remote-schema-error` "HTTP exception
 * occurred while sending the request to \"<url as written, or url_from_env's
 * name>\"", for a server that is down or too slow; an answer that is not an
 * introspection result (a 500, garbage) is `remote-schema-error` too, in
 * aeson's words, where Engine says what it got). Engine keeps v2's words and
 * adds why after a colon, where v2 has it in `internal` (the operator's
 * transient-failure check reads it). The call answers the bare message, as
 * v2's addRemoteSchemaP2Setup does, not the inconsistency's reason. A name
 * clash stays `invalid-configuration`.
 */

/**
 * The remote's schema, or why it could not be had (with the error code of Note [Remote schema error codes] when it
 * is not invalid-configuration). `shownAs` names the remote in messages as v2 does: `url` as written or the name in
 * `url_from_env`.
 */
export async function introspectRemote(
  endpoint: RemoteEndpoint,
  shownAs: string = endpoint.url,
  unverifiedTls = false,
): Promise<{ schema: GraphQLSchema } | { reason: string; code?: ErrorCode }> {
  let answer;
  try {
    answer = await postGraphql({ url: endpoint.url, headers: Object.fromEntries(endpoint.headers), body: QUERY, timeoutMs: endpoint.timeoutMs, unverifiedTls });
  } catch (e) {
    if (!(e instanceof RemoteCallError)) return { reason: String(e), code: ErrorCode.RemoteSchemaError };
    const reason = e.kind === 'transport' ? `HTTP exception occurred while sending the request to ${JSON.stringify(shownAs)}: ${e.message}` : e.message;
    return { reason, code: ErrorCode.RemoteSchemaError };
  }
  if (answer.errors !== undefined && answer.errors.length > 0) {
    const first = answer.errors[0]?.['message'];
    return {
      reason: `introspecting the remote schema failed: ${typeof first === 'string' ? first : JSON.stringify(answer.errors[0])}`,
      code: ErrorCode.RemoteSchemaError,
    };
  }
  const data = answer.data as IntrospectionQuery | null | undefined;
  if (data === null || data === undefined || typeof data.__schema !== 'object' || data.__schema === null) {
    return { reason: 'the remote schema did not answer the introspection query with a schema', code: ErrorCode.RemoteSchemaError };
  }
  let schema: GraphQLSchema;
  try {
    schema = buildClientSchema(data);
  } catch (e) {
    return { reason: `the remote schema's introspection is not valid: ${e instanceof Error ? e.message : String(e)}`, code: ErrorCode.RemoteSchemaError };
  }
  const errors = validateSchema(schema);
  if (errors.length > 0) return { reason: `the remote schema is not valid: ${errors[0]?.message ?? ''}`, code: ErrorCode.RemoteSchemaError };
  return { schema };
}
