/**
 * The cache-miss half of a request: parse, validate and pick the operation.
 * Errors are v2-shaped: `parse-failed` for syntax, `validation-failed` with
 * the document path of the offending node.
 */
import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { documentPath } from './document-path.ts';

/** A parsed, validated document and its chosen operation. */
export interface PreparedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
}

/** v2 compat: the wording users see for the commonest validation error. */
function v2Message(e: GraphQLError): string {
  const m = /^Cannot query field "([^"]+)" on type "([^"]+)"/.exec(e.message);
  if (m !== null) return `field '${m[1]}' not found in type: '${m[2]}'`;
  return e.message;
}

/**
 * Parses and validates `query` against `schema`. `check` sees the parsed
 * operation before validation (cost limits: Note [Operation cost]) and may
 * throw. Documents are parsed without locations: nothing reads them, and a
 * cached document then keeps a third of the memory (Note [Plan cache bytes]).
 */
export function prepareOperation(
  schema: GraphQLSchema,
  query: string,
  operationName: string | null,
  check?: (document: DocumentNode, operation: OperationDefinitionNode) => void,
): PreparedOperation {
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true });
  } catch (e) {
    const message = e instanceof GraphQLError ? e.message : e instanceof RangeError ? 'the query is nested too deeply' : 'not a valid graphql query';
    throw new EngineError(ErrorCode.ParseFailed, message, { path: '$.query' });
  }
  if (schema.getMutationType() == null && document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'mutation')) {
    // v2 compat: the wording for a role that may write nothing.
    throw new EngineError(ErrorCode.ValidationFailed, 'no mutations exist', { path: '$' });
  }
  // No subscription_root is advertised until a WebSocket serves subscriptions (build-schema.ts).
  if (schema.getSubscriptionType() == null && document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'subscription')) {
    throw new EngineError(ErrorCode.ValidationFailed, 'subscriptions are not supported yet', { path: '$' });
  }
  const chosen = getOperationAST(document, operationName);
  let errors: readonly GraphQLError[];
  try {
    if (check !== undefined && chosen !== null && chosen !== undefined) check(document, chosen);
    errors = validate(schema, document);
  } catch (e) {
    // Some validation rules (and the cost walk) recurse on nesting: see Note [Depth bounds] in graphql/to-ir/depth.ts.
    if (e instanceof RangeError) throw new EngineError(ErrorCode.ValidationFailed, 'the query is nested too deeply', { path: '$.query' });
    throw e;
  }
  const first = errors[0];
  if (first !== undefined) {
    throw new EngineError(ErrorCode.ValidationFailed, v2Message(first), { path: documentPath(document, first.nodes?.[0]) });
  }
  const operation = chosen;
  if (operation === null || operation === undefined) {
    const message =
      operationName === null
        ? 'exactly one operation has to be present in the document when operationName is not specified'
        : `no such operation found in the document: "${operationName}"`;
    throw new EngineError(ErrorCode.ValidationFailed, message, { path: '$' });
  }

  return { document, operation };
}
