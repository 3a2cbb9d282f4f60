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
  /** A row count (`limit`, `offset`): passed as is; negative is a validation error, Note [Row counts]. */
  | 'row-count'
  /** A v2 JSON path string (a json column's `path`), sent as its elements (text[]): Note [JSON path argument]. */
  | 'json-path'
  /**
   * A session variable used as an array, read by the statement's dialect
   * (Dialect.sessionArray): on PostgreSQL a JSON array (`[1,2]`) is parsed, an
   * array literal (`{1,2}`) is passed through.
   */
  | 'session-array'
  /** A Relay cursor (base64 of a JSON object), sent as the JSON text; one that is not is a validation error. */
  | 'relay-cursor';

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
  /** Every session variable as one JSON object (a function's `session_argument`). */
  | { readonly kind: 'session-object' }
  /** A list literal whose items are slots of their own (`_in: [$a, 1]`). */
  | { readonly kind: 'list'; readonly items: readonly ParamSource[] }
  /** One JSON-encoded parameter assembled at bind time (mutation input rows). See {@link JsonDoc}. */
  | { readonly kind: 'json-doc'; readonly doc: JsonDoc };

/**
 * A JSON document whose leaves may be GraphQL variables: the rows of an
 * insert, the `_set` object of an update. Sent as one parameter, so a plan is
 * reused whatever the values (see Note [Mutation inputs as JSON] in
 * ir/mutation.ts).
 */
export type JsonDoc =
  /** A value known when the plan is built. */
  | { readonly kind: 'const'; readonly value: unknown }
  /** A GraphQL variable's value (an absent variable is null). */
  | { readonly kind: 'variable'; readonly name: string }
  /** A session variable's value (permission presets); `json`: its text is a JSON document (a JSON column's preset). */
  | { readonly kind: 'session'; readonly name: string; readonly json?: true }
  | { readonly kind: 'object'; readonly fields: ReadonlyArray<readonly [string, JsonDoc]> }
  | { readonly kind: 'array'; readonly items: readonly JsonDoc[] };

/** A constant parameter. */
export function constParam(value: unknown): ParamSource {
  return { kind: 'const', value };
}
