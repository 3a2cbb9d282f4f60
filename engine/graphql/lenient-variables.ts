/**
 * Note [Lenient variables]
 * v2 parses a variable's JSON with the parser of the position it is used in,
 * and its integer and column parsers take numbers written as JSON strings
 * (`{"offset": "1"}`, `{"id": "2147483647"}`): clients that serialize ids as
 * strings rely on it. graphql-js's Int and Float refuse strings, so when
 * coercion fails, the variables are walked along their declared types once
 * and every numeric string at an Int or Float position becomes the number it
 * spells; coercion then runs again (and still refuses "abc", "1.5" for an
 * Int, or an Int out of 32-bit range). The walk runs only after a failed
 * coercion: a request whose variables coerce as given pays nothing.
 * Difference from v2: v2's `limit` parser alone refuses a string; here the
 * string is accepted there too (the declared type is all coercion sees).
 */
import { isInputObjectType, isListType, isNonNullType, typeFromAST, type GraphQLInputType, type GraphQLSchema, type VariableDefinitionNode } from 'graphql';

const INT_TEXT = /^-?\d+$/;
const FLOAT_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `value` with numeric strings at Int/Float positions of `type` turned into numbers (the same object when none). */
function lenientValue(value: unknown, type: GraphQLInputType, depth: number): unknown {
  if (depth > 64 || value === null || value === undefined) return value;
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) {
    if (!Array.isArray(value)) return lenientValue(value, t.ofType, depth + 1);
    let changed = false;
    const out = value.map((v: unknown) => {
      const n = lenientValue(v, t.ofType, depth + 1);
      if (n !== v) changed = true;
      return n;
    });
    return changed ? out : value;
  }
  if (isInputObjectType(t)) {
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const fields = t.getFields();
    let out: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const field = fields[k];
      if (field === undefined) continue;
      const n = lenientValue(v, field.type, depth + 1);
      if (n !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = n;
    }
    return out ?? value;
  }
  if (typeof value !== 'string') return value;
  if (t.name === 'Int' && INT_TEXT.test(value)) return Number(value);
  if (t.name === 'Float' && FLOAT_TEXT.test(value)) return Number(value);
  return value;
}

/** The variables with numeric strings at Int/Float positions turned into numbers, or null when there were none. See Note [Lenient variables]. */
export function lenientVariables(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  inputs: Readonly<Record<string, unknown>>,
): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  for (const def of definitions) {
    const name = def.variable.name.value;
    if (!Object.hasOwn(inputs, name)) continue;
    const type = typeFromAST(schema, def.type) as GraphQLInputType | undefined;
    if (type === undefined) continue;
    const v = inputs[name];
    const n = lenientValue(v, type, 0);
    if (n !== v) (out ??= { ...inputs })[name] = n;
  }
  return out;
}
