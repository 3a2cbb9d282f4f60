/**
 * Note [Scalar variables at once] (issue 35)
 * Most operations declare only variables of the built-in scalar types
 * (`$id: Int!`, `$name: String`), and graphql-js's getVariableValues is a
 * general walk for each request: the type looked up from its AST
 * (typeFromAST), `instanceOf` checks on every wrapper (their failing branch
 * reads constructor names unless NODE_ENV is `production`), an error
 * collector and coerceInputValue's recursion. In the `--cpu-prof` of
 * CustomerInvoices (`$id: Int!`) under load that was about 5 µs of the
 * engine's CPU per request (coerceVariableValues 3.7, instanceOf 0.8,
 * typeFromAST 0.7), the largest single cost on a plan-cache hit.
 * So an operation whose every variable is of a built-in scalar type, bare or
 * non-null and without a default value, gets a coercer made once with its
 * cache entry: it checks each value as the scalar's `parseValue` does (Int: a
 * whole number within 32 bits; Float: a finite number; String; Boolean; ID: a
 * string or a whole number, which becomes its text) and copies it, in the
 * order and with the absent and null rules of getVariableValues. A value it
 * does not accept gives null, and the request takes the general path, which
 * words the error as v2 does and reads numbers sent as strings (Note
 * [Lenient variables]); so the fast path only ever answers what the general
 * one answers (test/unit/execute/scalar-variables.test.ts compares them).
 * `node test/bench/compare-engines.ts <before> --ops CustomerInvoices` shows
 * the effect; the figures are in the commit that added this.
 */
import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString, Kind, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

/** The coerced variables, or null when a value needs the general path. */
export type ScalarCoercer = (inputs: Readonly<Record<string, unknown>>) => Record<string, unknown> | null;

/** Returned by a check for a value its scalar does not accept. */
const REFUSED: unique symbol = Symbol('refused');

type Check = (v: unknown) => unknown;

const MAX_INT = 2147483647;
const MIN_INT = -2147483648;

const checkInt: Check = (v) => (typeof v === 'number' && Number.isInteger(v) && v <= MAX_INT && v >= MIN_INT ? v : REFUSED);
const checkFloat: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : REFUSED);
const checkString: Check = (v) => (typeof v === 'string' ? v : REFUSED);
const checkBoolean: Check = (v) => (typeof v === 'boolean' ? v : REFUSED);
const checkId: Check = (v) => (typeof v === 'string' ? v : typeof v === 'number' && Number.isInteger(v) ? String(v) : REFUSED);

/** graphql-js's own scalar objects: a schema that defines a type of the same name otherwise is not taken. */
const CHECKS: ReadonlyMap<unknown, Check> = new Map<unknown, Check>([
  [GraphQLInt, checkInt],
  [GraphQLFloat, checkFloat],
  [GraphQLString, checkString],
  [GraphQLBoolean, checkBoolean],
  [GraphQLID, checkId],
]);

interface Slot {
  readonly name: string;
  readonly nonNull: boolean;
  readonly check: Check;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The fast coercer of `operation`'s variables, or null when one is not a bare built-in scalar (see the Note). */
export function scalarCoercer(schema: GraphQLSchema, operation: OperationDefinitionNode): ScalarCoercer | null {
  const slots: Slot[] = [];
  for (const d of operation.variableDefinitions ?? []) {
    if (d.defaultValue !== undefined) return null;
    const nonNull = d.type.kind === Kind.NON_NULL_TYPE;
    const named = d.type.kind === Kind.NON_NULL_TYPE ? d.type.type : d.type;
    if (named.kind !== Kind.NAMED_TYPE) return null;
    const check = CHECKS.get(schema.getType(named.name.value));
    if (check === undefined) return null;
    slots.push({ name: d.variable.name.value, nonNull, check });
  }
  return (inputs) => {
    const out: Record<string, unknown> = {};
    for (const s of slots) {
      // As getVariableValues: an absent nullable variable stays absent, an absent non-null one is an error.
      if (!hasOwn.call(inputs, s.name)) {
        if (s.nonNull) return null;
        continue;
      }
      const v = inputs[s.name];
      if (v === null || v === undefined) {
        if (s.nonNull) return null;
        out[s.name] = null;
        continue;
      }
      const c = s.check(v);
      if (c === REFUSED) return null;
      out[s.name] = c;
    }
    return out;
  };
}
