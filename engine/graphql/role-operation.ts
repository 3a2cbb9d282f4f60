/**
 * A validated operation as its role's schema reads it: the request steps
 * after `validate` (coerce variables, `toIr`) go through this object and
 * never see the schema's naming convention. Under `graphql-default` it
 * translates the document and variables to default names and the IR's
 * `__typename` values back (Note [Renamed schema] in
 * schema/naming-convention.ts); otherwise it passes through. execute/ may not
 * import naming-convention.ts (a lint zone).
 */
import {
  getVariableValues,
  Kind,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
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
  /** The role may introspect (`__schema`, `__type`): Note [Introspection disabled for roles]. */
  readonly introspection: boolean;
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
  if (r.errors !== undefined) throw variableError(operation, r.errors[0]);
  return r.coerced;
}

/**
 * Note [Variable error paths]
 * v2 parses a variable's value where the operation uses it, so a bad value is reported at that
 * argument (`$.selectionSet.author.args.distinct_on[0]`), not at `$.variableValues`; and an Int
 * that is fractional or outside 32 bits is `parse-failed` with v2's wording. graphql-js coerces
 * variables against their declarations first: its error names the variable and the path inside
 * the value (`at "d[0]"`), which is appended to the first place the operation (not its named
 * fragments) passes the variable. A variable used only in fragments keeps `$.variableValues`.
 */
function variableError(operation: OperationDefinitionNode, error: GraphQLError | undefined): EngineError {
  const message = error?.message ?? 'invalid variables';
  const name = /^Variable "\$([_A-Za-z][_0-9A-Za-z]*)" got invalid value /.exec(message)?.[1];
  const usage = name === undefined ? null : variableUsagePath(operation.selectionSet, name, '$');
  const inner = / at "([^"]*)"; /.exec(message)?.[1] ?? '';
  const path = usage === null ? '$.variableValues' : usage + (name !== undefined && inner.startsWith(name) ? inner.slice(name.length) : '');
  const original = error?.originalError?.message ?? '';
  const int = /^Int cannot represent non(?:-integer| 32-bit signed integer) value: (.*)$/.exec(original);
  const value = int === null ? NaN : Number(int[1]);
  // A number (or a numeric string, read as one: Note [Lenient variables]); other strings stay validation errors.
  if (Number.isFinite(value)) {
    const text = `The value ${scientificText(value)} lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?`;
    return new EngineError(ErrorCode.ParseFailed, text, { path });
  }
  return new EngineError(ErrorCode.ValidationFailed, message, { path });
}

/** A number as Haskell's `show` of a Scientific writes it (v2's messages): `1.5`, `2.147483648e9`. */
function scientificText(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 0.1 && abs < 1e7) return Number.isInteger(n) ? `${n}.0` : String(n);
  const [mantissa = '0', exponent = '0'] = n.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}e${Number(exponent)}`;
}

/** The v2 path of the first argument (or input field inside one) of `set` that passes `$name`. */
function variableUsagePath(set: SelectionSetNode | undefined, name: string, path: string): string | null {
  for (const sel of set?.selections ?? []) {
    if (sel.kind === Kind.INLINE_FRAGMENT) {
      const p = variableUsagePath(sel.selectionSet, name, path);
      if (p !== null) return p;
    } else if (sel.kind === Kind.FIELD) {
      const here = `${path}.selectionSet.${(sel.alias ?? sel.name).value}`;
      for (const arg of sel.arguments ?? []) {
        const p = valueUsagePath(arg.value, name, `${here}.args.${arg.name.value}`);
        if (p !== null) return p;
      }
      const p = variableUsagePath(sel.selectionSet, name, here);
      if (p !== null) return p;
    }
  }
  return null;
}

function valueUsagePath(v: ValueNode, name: string, path: string): string | null {
  if (v.kind === Kind.VARIABLE) return v.name.value === name ? path : null;
  if (v.kind === Kind.LIST) {
    for (const [i, item] of v.values.entries()) {
      const p = valueUsagePath(item, name, `${path}[${i}]`);
      if (p !== null) return p;
    }
  } else if (v.kind === Kind.OBJECT) {
    for (const f of v.fields) {
      const p = valueUsagePath(f.value, name, `${path}.${f.name.value}`);
      if (p !== null) return p;
    }
  }
  return null;
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
