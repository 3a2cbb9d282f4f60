/**
 * A REST request's variables: path parameters, query-string parameters and
 * the JSON body, in that precedence, for the variables the endpoint's
 * operation defines (other parameters and body keys are ignored).
 *
 * Note [REST variable coercion]
 * Path and query-string values are text; each is read as the variable's
 * type says, using the names the admin schema gives them: `Int` (an integer
 * in 32 bits), `Float`, `Boolean` (`true`/`false`), `String` and `ID` as
 * they are; an enum and any other scalar (uuid, numeric, timestamptz...) as
 * the text, which the GraphQL coercion then checks; a list, an input object,
 * `json`/`jsonb` as JSON text (for `json`/`jsonb`, text that is not JSON is
 * the string itself). Body values are JSON already and go in unchanged. A
 * required variable (non-null without a default) that none of the three
 * gives, or a value that cannot be read as its type, is a 400
 * `validation-failed` before anything runs; type errors inside JSON values
 * are graphql-js's coercion errors, also 400.
 */
import { isEnumType, isInputObjectType, Kind, type GraphQLSchema, type OperationDefinitionNode, type TypeNode } from 'graphql';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { scalarInfoOfType } from '../graphql/schema/scalars.ts';

function bad(message: string): EngineError {
  return new EngineError(ErrorCode.ValidationFailed, message, { path: '$', status: 400 });
}

const INT32 = 2 ** 31;

/** Reads `text` as a value of `type` (Note [REST variable coercion]). */
export function readText(name: string, text: string, type: TypeNode, schema: () => GraphQLSchema): unknown {
  const t = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  if (t.kind === Kind.LIST_TYPE) return readJson(name, text, 'a list');
  const typeName = t.name.value;
  switch (typeName) {
    case 'Int': {
      const n = /^-?\d+$/.test(text) ? Number(text) : NaN;
      if (!Number.isInteger(n) || n >= INT32 || n < -INT32) throw bad(`the value "${text}" of variable "${name}" is not an Int`);
      return n;
    }
    case 'Float': {
      const n = text.trim() === '' ? NaN : Number(text);
      if (!Number.isFinite(n)) throw bad(`the value "${text}" of variable "${name}" is not a Float`);
      return n;
    }
    case 'Boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw bad(`the value "${text}" of variable "${name}" is not a Boolean (true or false)`);
    case 'String':
    case 'ID':
      return text;
  }
  const named = schema().getType(typeName);
  // A JSON type (json/jsonb as the source's backend describes it): text that is not JSON is the string itself.
  if (scalarInfoOfType(named)?.json === true) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  if (named !== undefined && named !== null && isInputObjectType(named)) return readJson(name, text, `a ${typeName}`);
  if (named !== undefined && named !== null && isEnumType(named)) return text;
  return text;
}

function readJson(name: string, text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw bad(`the value of variable "${name}" is not ${what} in JSON`);
  }
}

/**
 * The variables of one request (Note [REST variable coercion]); `query` is
 * the raw query string; `schema` is asked for only when a type needs it.
 */
export function restVariables(
  operation: OperationDefinitionNode,
  schema: () => GraphQLSchema,
  path: Readonly<Record<string, string>>,
  queryString: string,
  body: unknown,
): Record<string, unknown> {
  const query = queryString === '' ? null : new URLSearchParams(queryString);
  const fromBody = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const text = Object.hasOwn(path, name) ? path[name] : query?.get(name);
    if (text !== null && text !== undefined) out[name] = readText(name, text, def.type, schema);
    else if (Object.hasOwn(fromBody, name)) out[name] = fromBody[name];
    else if (def.type.kind === Kind.NON_NULL_TYPE && def.defaultValue === undefined)
      throw bad(`variable "${name}" is required (a path parameter, a query parameter or a key of the JSON body)`);
  }
  return out;
}
