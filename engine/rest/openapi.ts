/**
 * The OpenAPI 3.0 document of the REST endpoints (`/api/swagger/json`).
 *
 * Note [OpenAPI from queries]
 * Each endpoint is one path (`/api/rest/authors/{id}`, v2's spelling) with
 * one operation per method. Its parameters come from the query's variables:
 * URL parameters `in: path` (required), every other variable `in: query`
 * (required when non-null without a default); for methods other than GET the
 * same variables may come as a JSON body, described as an optional object.
 * The 200 response schema is derived from the selection set read against
 * the admin schema: aliases as property names, fragments merged, lists as
 * arrays, nullable fields `nullable: true`; scalars by what the engine writes
 * (Int integer, Float and the numeric database types number, Boolean
 * boolean, json/jsonb any value, everything else string; under
 * ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES numbers come as strings, which this
 * schema does not say). Error responses are v2's `{path, error, code}`.
 */
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  Kind,
  print,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type TypeNode,
  type GraphQLObjectType,
  type GraphQLInterfaceType,
} from 'graphql';
import type { RestEndpointInfo } from '../catalog/types.ts';
import { scalarInfoOfType } from '../graphql/schema/scalars.ts';
import { openapiPath } from '../catalog/url-template.ts';

type Schema = Record<string, unknown>;

/** The JSON schema of a scalar or enum named `name`; a database type's scalar as its backend describes it. */
function scalarSchema(name: string, schema: GraphQLSchema): Schema {
  if (name === 'Int') return { type: 'integer' };
  if (name === 'Float') return { type: 'number' };
  if (name === 'Boolean') return { type: 'boolean' };
  const t = schema.getType(name);
  const info = scalarInfoOfType(t);
  if (info?.json === true) return {};
  if (info?.numeric === true) return { type: 'number' };
  if (t !== undefined && t !== null && isEnumType(t)) return { type: 'string', enum: t.getValues().map((v) => v.name) };
  if (t !== undefined && t !== null && isInputObjectType(t)) return { type: 'object', description: `a ${name} (JSON)` };
  return { type: 'string' };
}

/** The schema of a variable's type. */
function variableSchema(type: TypeNode, schema: GraphQLSchema): Schema {
  const t = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  if (t.kind === Kind.LIST_TYPE) return { type: 'array', items: variableSchema(t.type, schema) };
  return scalarSchema(t.name.value, schema);
}

/** The schema of an output type, reading `selection` for objects; `nullable: true` unless the type is non-null. */
function outputSchema(
  type: GraphQLOutputType,
  selection: SelectionSetNode | undefined,
  schema: GraphQLSchema,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): Schema {
  if (isNonNullType(type)) return valueSchema(type.ofType, selection, schema, fragments);
  return { ...valueSchema(type, selection, schema, fragments), nullable: true };
}

/** The schema of a nullable output type's values. */
function valueSchema(
  type: GraphQLOutputType,
  selection: SelectionSetNode | undefined,
  schema: GraphQLSchema,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): Schema {
  if (isListType(type)) return { type: 'array', items: outputSchema(type.ofType, selection, schema, fragments) };
  const named = getNamedType(type);
  if ((isObjectType(named) || isInterfaceType(named)) && selection !== undefined) return selectionSchema(named, selection, schema, fragments);
  return scalarSchema(named.name, schema);
}

/** The object schema of `selection` on `parent`. */
function selectionSchema(
  parent: GraphQLObjectType | GraphQLInterfaceType,
  selection: SelectionSetNode,
  schema: GraphQLSchema,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): Schema {
  const properties: Record<string, Schema> = {};
  const visit = (set: SelectionSetNode): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (f !== undefined) visit(f.selectionSet);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        visit(s.selectionSet);
      } else {
        const key = s.alias?.value ?? s.name.value;
        if (s.name.value === '__typename') {
          properties[key] = { type: 'string' };
          continue;
        }
        const field = parent.getFields()[s.name.value];
        if (field === undefined) continue;
        properties[key] = outputSchema(field.type, s.selectionSet, schema, fragments);
      }
    }
  };
  visit(selection);
  return { type: 'object', properties };
}

const ERROR_SCHEMA: Schema = {
  type: 'object',
  required: ['path', 'error', 'code'],
  properties: { path: { type: 'string' }, error: { type: 'string' }, code: { type: 'string' } },
};

function errorResponse(description: string): Schema {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

/** The operation object of one endpoint and method. */
function operationOf(e: RestEndpointInfo, method: string, schema: GraphQLSchema): Schema {
  const pathParams = new Set(e.segments.flatMap((s) => (s.param ? [s.name] : [])));
  const parameters: Schema[] = [];
  const bodyProperties: Record<string, Schema> = {};
  for (const def of e.operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const s = variableSchema(def.type, schema);
    if (pathParams.has(name)) {
      parameters.push({ name, in: 'path', required: true, schema: s });
      continue;
    }
    const required = def.type.kind === Kind.NON_NULL_TYPE && def.defaultValue === undefined;
    // Lists and objects travel as JSON text in a query string.
    const query: Schema =
      s['type'] === 'object' || s['type'] === 'array'
        ? { name, in: 'query', required, content: { 'application/json': { schema: s } } }
        : { name, in: 'query', required, schema: s };
    parameters.push(query);
    bodyProperties[name] = s;
  }
  const root = e.operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of e.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const data = root === null || root === undefined ? { type: 'object' } : selectionSchema(root, e.operation.selectionSet, schema, fragments);
  const op: Schema = {
    summary: e.name,
    description: `${e.comment === null ? '' : `${e.comment}\n\n`}The GraphQL ${e.operation.operation} of this endpoint (query "${e.queryName}" of collection "${e.collection}"):\n\n\`\`\`graphql\n${e.document.definitions.map((d) => print(d)).join('\n\n')}\n\`\`\``,
    operationId: `${e.name}_${method.toLowerCase()}`,
    parameters,
    responses: {
      '200': { description: `the data of ${e.name}`, content: { 'application/json': { schema: data } } },
      '400': errorResponse('a missing or invalid variable, or a GraphQL error'),
      '401': errorResponse('authentication failed'),
    },
  };
  if (method !== 'GET' && Object.keys(bodyProperties).length > 0) {
    op['requestBody'] = { required: false, content: { 'application/json': { schema: { type: 'object', properties: bodyProperties } } } };
  }
  return op;
}

/** The OpenAPI 3.0 document of `endpoints` (Note [OpenAPI from queries]). */
export function buildOpenApi(endpoints: readonly RestEndpointInfo[], schema: GraphQLSchema): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const e of endpoints) {
    const p = (paths[openapiPath(e.segments)] ??= {});
    for (const m of e.methods) p[m.toLowerCase()] = operationOf(e, m, schema);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'REST endpoints', description: 'The REST endpoints of this engine, generated from their GraphQL queries.', version: '1.0.0' },
    paths,
    components: { schemas: { Error: ERROR_SCHEMA } },
  };
}
