/**
 * A validated operation as its role's schema reads it: the request steps
 * after `validate` (coerce variables, `toIr`) go through this object and
 * never see the schema's naming convention. Under `graphql-default` it
 * translates the document and variables to default names and the IR's
 * `__typename` values back (Note [Renamed schema] in
 * schema/naming-convention.ts); otherwise it passes through. execute/ may not
 * import naming-convention.ts (a lint zone).
 */
import { getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type OperationTypeNode } from 'graphql';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { RoleSchema } from './schema/build-schema.ts';
import { lenientVariables } from './lenient-variables.ts';
import { renameTypenames, toDefaultNames, variablesToDefaultNames, type NamingConvention } from './schema/naming-convention.ts';
import type { RoleAccess } from './schema/role-access.ts';
import { toIrOperation, type OperationIr } from './to-ir/operation.ts';

/** What toIr needs from the request beyond the operation. */
export interface ToIrInput {
  /** The requesting role's own permissions (its schema may be shared: Note [Shared role types]). */
  readonly access: RoleAccess;
  /** Coerced variables, from {@link RoleOperation.coerceVariables}. */
  readonly variables: Readonly<Record<string, unknown>>;
  readonly stringifyNumericTypes: boolean;
}

/** A parsed, validated operation of one role's schema (kept in the plan cache). */
export interface RoleOperation {
  /** The schema to-ir reads (default names). */
  readonly schema: GraphQLSchema;
  /** The document and operation in default names. */
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly kind: OperationTypeNode;
  readonly hasVariables: boolean;
  /** The request's variables coerced against the operation's definitions, in default names. */
  coerceVariables(inputs: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** The operation as IR, `__typename` values in the client's names. */
  toIr(input: ToIrInput): OperationIr;
}

/** Coerces `inputs` against the variable definitions of `operation` (v2 errors). */
export function coerceVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
  let r: ReturnType<typeof getVariableValues>;
  const definitions = operation.variableDefinitions ?? [];
  try {
    r = getVariableValues(schema, definitions, inputs);
    if (r.errors !== undefined) {
      // v2 compat: numbers written as strings (Note [Lenient variables]); only after a failure.
      const lenient = lenientVariables(schema, definitions, inputs);
      if (lenient !== null) r = getVariableValues(schema, definitions, lenient);
    }
  } catch (e) {
    // graphql-js coerces recursively: see Note [Depth bounds] in to-ir/depth.ts.
    if (e instanceof RangeError) throw new EngineError(ErrorCode.ValidationFailed, 'the variables are nested too deeply', { path: '$.variableValues' });
    throw e;
  }
  // graphql-js reports a throw while coercing (a stack overflow) as one of the errors.
  if (
    r.errors?.some((e: unknown) => e instanceof RangeError || (e instanceof Error && 'originalError' in e && e.originalError instanceof RangeError)) === true
  ) {
    throw new EngineError(ErrorCode.ValidationFailed, 'the variables are nested too deeply', { path: '$.variableValues' });
  }
  if (r.errors !== undefined) {
    throw new EngineError(ErrorCode.ValidationFailed, r.errors[0]?.message ?? 'invalid variables', { path: '$.variableValues' });
  }
  return r.coerced;
}

/** An operation of a schema in default names: nothing to translate. */
class PlainOperation implements RoleOperation {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly kind: OperationTypeNode;
  readonly hasVariables: boolean;
  constructor(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode) {
    this.schema = schema;
    this.document = document;
    this.operation = operation;
    this.kind = operation.operation;
    this.hasVariables = (operation.variableDefinitions?.length ?? 0) > 0;
  }
  coerceVariables(inputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
    return coerceVariables(this.schema, this.operation, inputs);
  }
  toIr(input: ToIrInput): OperationIr {
    return toIrOperation({ schema: this.schema, document: this.document, operation: this.operation, ...input });
  }
}

/** An operation of a renamed schema: see Note [Renamed schema]. */
class RenamedOperation implements RoleOperation {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly kind: OperationTypeNode;
  readonly hasVariables: boolean;
  readonly #naming: NamingConvention;
  /** The operation in client names (variables are coerced against it). */
  readonly #client: OperationDefinitionNode;
  constructor(naming: NamingConvention, document: DocumentNode, operation: OperationDefinitionNode) {
    const inner = toDefaultNames(naming, document, operation);
    this.schema = naming.original;
    this.document = inner.document;
    this.operation = inner.operation;
    this.kind = inner.operation.operation;
    this.hasVariables = (operation.variableDefinitions?.length ?? 0) > 0;
    this.#naming = naming;
    this.#client = operation;
  }
  coerceVariables(inputs: Readonly<Record<string, unknown>>): Record<string, unknown> {
    return variablesToDefaultNames(this.#naming, this.#client, coerceVariables(this.#naming.renamed, this.#client, inputs));
  }
  toIr(input: ToIrInput): OperationIr {
    const op = toIrOperation({
      schema: this.schema,
      document: this.document,
      operation: this.operation,
      ...input,
      introspectionSchema: this.#naming.renamed,
    });
    return { ...op, fields: renameTypenames(op.fields, this.#naming.typeNames) };
  }
}

/** `operation` of `document`, validated against `role.schema`, as that role's schema reads it. */
export function roleOperation(role: RoleSchema, document: DocumentNode, operation: OperationDefinitionNode): RoleOperation {
  return role.naming === undefined ? new PlainOperation(role.schema, document, operation) : new RenamedOperation(role.naming, document, operation);
}
