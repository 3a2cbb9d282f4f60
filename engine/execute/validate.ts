/**
 * The `parse` and `validate` request steps (Note [Request steps]), the
 * cache-miss half of a request. Errors are v2-shaped: `parse-failed` for
 * syntax, `validation-failed` with the document path of the offending node.
 * `validate` also holds the bounds on an operation's size (Note [Operation
 * cost]): they are checked before graphql-js's rules run, so a huge
 * operation is refused before it costs a validation.
 */
import {
  getOperationAST,
  GraphQLError,
  introspectionTypes,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isTypeDefinitionNode,
  isTypeSystemDefinitionNode,
  isTypeSystemExtensionNode,
  KnownTypeNamesRule,
  Kind,
  NoUnusedVariablesRule,
  specifiedRules,
  specifiedScalarTypes,
  parse as parseDocument,
  validate as validateDocument,
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationContext,
} from 'graphql';
import { didYouMean as graphqlDidYouMean } from 'graphql/jsutils/didYouMean.js';
import { suggestionList } from 'graphql/jsutils/suggestionList.js';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { didYouMean } from '../errors/suggest.ts';
import { limitExceeded, type RoleLimits } from './api-limits.ts';
import { documentPath } from './document-path.ts';
import { measureOperation, type OperationCost } from './operation-cost.ts';
import { noteValidSchema, validateSchemaOnce } from '../graphql/schema/collect-types.ts';

/** A parsed, validated document, its chosen operation and that operation's cost. */
export interface ValidatedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly cost: OperationCost;
}

/** The size bounds `validate` applies (Note [Operation cost], Note [API limits]). */
export interface OperationBounds {
  /** Most fields, fragments expanded (0: no bound). */
  readonly fieldLimit: number;
  /** The role's depth and node limits (null: none). */
  readonly limits: RoleLimits | null;
}

const STANDARD_TYPE_NAMES = [...specifiedScalarTypes, ...introspectionTypes].map((t) => t.name);

function isSDLNode(node: ASTNode | readonly ASTNode[]): boolean {
  return 'kind' in node && (isTypeSystemDefinitionNode(node) || isTypeSystemExtensionNode(node));
}

/**
 * Note [Known type names without a list]
 * graphql-js's KnownTypeNamesRule lists every type name of the schema
 * (`[...Object.keys(typeMap)]`) on each validation, before it knows whether
 * any name is unknown: 84,000 names at 2,000 tables, on every plan-cache
 * miss (1.8% of an engine start's CPU, where each role's first request is
 * one). This rule is graphql-js 16's, the same checks and message, except
 * that it looks names up in the type map and lists the names (for the
 * suggestions) only when one is unknown.
 * test/unit/execute/known-type-names.test.ts compares both rules' errors.
 * What settled it (`NODE_ENV=production node
 * test/bench/known-type-names-cost.ts 84000`, 2026-11-28, load ~14): one
 * small query's validation by this rule alone, 18-29 ms with graphql-js's,
 * 0.06-0.10 ms with this one.
 */
export function KnownTypeNamesLookupRule(context: ValidationContext): ASTVisitor {
  const existing = context.getSchema().getTypeMap();
  const defined: Record<string, true> = Object.create(null) as Record<string, true>;
  for (const def of context.getDocument().definitions) if (isTypeDefinitionNode(def)) defined[def.name.value] = true;
  let typeNames: string[] | undefined;
  return {
    NamedType(node, _key, parent, _path, ancestors) {
      const typeName = node.name.value;
      if (existing[typeName] !== undefined || defined[typeName] !== undefined) return;
      const definitionNode = ancestors[2] ?? parent;
      const isSDL = definitionNode != null && isSDLNode(definitionNode);
      if (isSDL && STANDARD_TYPE_NAMES.includes(typeName)) return;
      typeNames ??= [...Object.keys(existing), ...Object.keys(defined)];
      const suggested = context.hideSuggestions ? [] : suggestionList(typeName, isSDL ? STANDARD_TYPE_NAMES.concat(typeNames) : typeNames);
      context.reportError(new GraphQLError(`Unknown type "${typeName}".` + graphqlDidYouMean(suggested), { nodes: node }));
    },
  };
}

/**
 * v2 compat: a variable the operation does not use is not an error in v2 (graphql-js's NoUnusedVariables is not one of its rules).
 * KnownTypeNamesRule is replaced by its equivalent: Note [Known type names without a list].
 */
const RULES = specifiedRules.filter((r) => r !== NoUnusedVariablesRule).map((r) => (r === KnownTypeNamesRule ? KnownTypeNamesLookupRule : r));

/**
 * Note [GraphQL hints]
 * ~~~~~~~~~~~~~~~~~~~~
 * graphql-js words its errors its own way and appends "Did you mean …?";
 * v2 words them `field 'bookz' not found in type: 'query_root'` and suggests
 * nothing. Clients match on v2's wording, so it stays exactly as the prefix,
 * and the hint follows in the metadata API's style (errors/suggest.ts):
 * `field 'bookz' not found in type: 'query_root'; did you mean "books"?`.
 * graphql-js's own suggestion list is dropped, so there is one style: the
 * candidates are the names the role's schema has, picked by `closest`.
 */
function v2Message(e: GraphQLError, schema: GraphQLSchema): string {
  const m = /^Cannot query field "([^"]+)" on type "([^"]+)"/.exec(e.message);
  if (m !== null) return `field '${m[1]}' not found in type: '${m[2]}'${hint(m[1], fieldNames(schema, m[2]))}`;
  const input = /^Field "([^"]+)" is not defined by type "([^"]+)"/.exec(e.message);
  if (input !== null) return `field '${input[1]}' not found in type: '${input[2]}'${hint(input[1], fieldNames(schema, input[2]))}`;
  const arg = /^Unknown argument "([^"]+)" on field "([^".]+)\.([^"]+)"/.exec(e.message);
  if (arg !== null) return `'${arg[3]}' has no argument named '${arg[1]}'${hint(arg[1], argumentNames(schema, arg[2], arg[3]))}`;
  const unknown = /^Unknown directive "@([^"]+)"\.$/.exec(e.message);
  if (unknown !== null) return `directive "${unknown[1]}" is not defined in the schema`;
  const twice = /^The directive "@([^"]+)" can only be used once at this location\.$/.exec(e.message);
  if (twice !== null) return `the following directives are used more than once: ${twice[1]}`;
  const misplaced = /^Directive "@([^"]+)" may not be used on ([A-Z_]+)\.$/.exec(e.message);
  if (misplaced !== null) return `directive "${misplaced[1]}" is not allowed on ${LOCATION[misplaced[2] ?? ''] ?? (misplaced[2] ?? '').toLowerCase()}`;
  // Any other message with graphql-js's suggestion list ("Unknown type", enum values): the same one-name hint.
  const other = /^(.*?"([^"]+)".*?)\.? Did you mean (.*)\?$/.exec(e.message);
  if (other !== null)
    return `${other[1]}${hint(
      other[2],
      [...(other[3] ?? '').matchAll(/"([^"]+)"/g)].map((x) => x[1] ?? ''),
    )}`;
  return e.message;
}

function hint(word: string | undefined, candidates: Iterable<string>): string {
  return word === undefined ? '' : didYouMean(word, candidates);
}

/** The field names of the object, interface or input object type `typeName` in `schema`. */
function fieldNames(schema: GraphQLSchema, typeName: string | undefined): string[] {
  const t = typeName === undefined ? undefined : schema.getType(typeName);
  return isObjectType(t) || isInterfaceType(t) || isInputObjectType(t) ? Object.keys(t.getFields()) : [];
}

function argumentNames(schema: GraphQLSchema, typeName: string | undefined, field: string | undefined): string[] {
  const t = typeName === undefined ? undefined : schema.getType(typeName);
  const f = (isObjectType(t) || isInterfaceType(t)) && field !== undefined ? t.getFields()[field] : undefined;
  return f === undefined ? [] : f.args.map((a) => a.name);
}

/** v2 compat: how v2 names a directive location in "is not allowed on …". */
const LOCATION: Readonly<Record<string, string>> = {
  QUERY: 'a query',
  MUTATION: 'a mutation',
  SUBSCRIPTION: 'a subscription',
  FIELD: 'a field',
  FRAGMENT_DEFINITION: 'a fragment definition',
  FRAGMENT_SPREAD: 'a fragment spread',
  INLINE_FRAGMENT: 'an inline fragment',
  VARIABLE_DEFINITION: 'a variable definition',
};

/**
 * The `parse` step. Documents are parsed without locations: nothing reads
 * them, and a cached document then keeps a third of the memory (Note [Plan
 * cache bytes]).
 */
export function parse(query: string): DocumentNode {
  try {
    return parseDocument(query, { noLocation: true });
  } catch (e) {
    const message = e instanceof GraphQLError ? e.message : e instanceof RangeError ? 'the query is nested too deeply' : 'not a valid graphql query';
    throw new EngineError(ErrorCode.ParseFailed, message, { path: '$.query' });
  }
}

/** Refuses an operation over the field bound or the role's depth and node limits (Note [Operation cost]). */
function checkBounds(cost: OperationCost, bounds: OperationBounds): void {
  if (bounds.fieldLimit > 0 && cost.fields > bounds.fieldLimit) throw limitExceeded('field', bounds.fieldLimit);
  const limits = bounds.limits;
  if (limits !== null) {
    if (limits.depth !== null && !cost.introspection && cost.depth > limits.depth) throw limitExceeded('depth', limits.depth);
    if (limits.nodes !== null && cost.nodes > limits.nodes) throw limitExceeded('node', limits.nodes);
  }
}

const NO_BOUNDS: OperationBounds = { fieldLimit: 0, limits: null };

/**
 * The `validate` step: picks the operation of `document`, measures it and
 * refuses it over `bounds`, then validates the document against `schema`.
 */
export function validate(schema: GraphQLSchema, document: DocumentNode, operationName: string | null, bounds: OperationBounds = NO_BOUNDS): ValidatedOperation {
  if (schema.getMutationType() == null && document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'mutation')) {
    // v2 compat: the wording for a role that may write nothing.
    throw new EngineError(ErrorCode.ValidationFailed, 'no mutations exist', { path: '$' });
  }
  const chosen = getOperationAST(document, operationName);
  let errors: readonly GraphQLError[];
  let cost: OperationCost | undefined;
  try {
    if (chosen !== null && chosen !== undefined) {
      cost = measureOperation(document, chosen);
      checkBounds(cost, bounds);
    }
    // A new schema is validated through the types no other schema validated: Note [Validating only new types].
    validateSchemaOnce(schema);
    errors = validateDocument(schema, document, RULES);
    // The schema passed validateSchema (validateDocument asserts it): Note [Validating only new types].
    noteValidSchema(schema);
  } catch (e) {
    // Some validation rules (and the cost walk) recurse on nesting: see Note [Depth bounds] in graphql/to-ir/depth.ts.
    if (e instanceof RangeError) throw new EngineError(ErrorCode.ValidationFailed, 'the query is nested too deeply', { path: '$.query' });
    throw e;
  }
  const first = errors[0];
  if (first !== undefined) {
    throw new EngineError(ErrorCode.ValidationFailed, v2Message(first, schema), { path: documentPath(document, first.nodes?.[0]) });
  }
  const operation = chosen;
  if (operation === null || operation === undefined || cost === undefined) {
    const message =
      operationName === null
        ? 'exactly one operation has to be present in the document when operationName is not specified'
        : `no such operation found in the document: "${operationName}"`;
    throw new EngineError(ErrorCode.ValidationFailed, message, { path: '$' });
  }
  return { document, operation, cost };
}

/** `parse` then `validate`, with no bounds. */
export function prepareOperation(schema: GraphQLSchema, query: string, operationName: string | null): ValidatedOperation {
  return validate(schema, parse(query), operationName);
}
