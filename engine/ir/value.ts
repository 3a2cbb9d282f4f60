/**
 * Values in the IR are never SQL text: each is a parameter slot whose value is
 * known when the plan is built (`const`), or read at bind time from the
 * request's GraphQL variables or session. See Note [Plan cache keys] in
 * execute/plan-cache.ts.
 */

/** How a bind-time value is turned into a driver parameter. */
export type ValueEncoding =
  /** Passed as is (strings, numbers, booleans, arrays of those). */
  | 'plain'
  /** JSON-encoded (json/jsonb columns). */
  | 'json'
  /** A list whose items are each JSON-encoded (`_in` on json/jsonb). */
  | 'json-each'
  /**
   * A session variable used as an array: a JSON array (`[1,2]`) is parsed, a
   * Postgres array literal (`{1,2}`) is passed through.
   */
  | 'session-array';

/** Where one SQL parameter's value comes from. */
export type ParamSource =
  /** Known at plan time (GraphQL literal, metadata constant); already encoded. */
  | { readonly kind: 'const'; readonly value: unknown }
  /** A GraphQL variable used at a leaf position. */
  | {
      readonly kind: 'variable';
      readonly name: string;
      readonly encoding: ValueEncoding;
      /** False where null has no meaning (comparison operands): binding null is an error. */
      readonly allowNull: boolean;
    }
  /** A session variable (lower-cased name, e.g. `x-engine-user-id`). */
  | { readonly kind: 'session'; readonly name: string; readonly encoding: ValueEncoding }
  /** A list literal whose items are slots of their own (`_in: [$a, 1]`). */
  | { readonly kind: 'list'; readonly items: readonly ParamSource[] };

/** A constant parameter. */
export function constParam(value: unknown): ParamSource {
  return { kind: 'const', value };
}
