/**
 * Database type → GraphQL scalar. v2 compat: Hasura v2 names scalars after the
 * Postgres type except a few that map to the built-ins (int4 → Int, text and
 * varchar → String, bool → Boolean, float4 → Float) and int2/int8 (smallint,
 * bigint). See shared/design/compat.md, "Generated GraphQL schema".
 */
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString, Kind, type ValueNode } from 'graphql';
import { scalarName } from '../../catalog/graphql-names.ts';

const BUILTIN: Readonly<Record<string, GraphQLScalarType>> = {
  int4: GraphQLInt,
  serial: GraphQLInt,
  text: GraphQLString,
  varchar: GraphQLString,
  bool: GraphQLBoolean,
  float4: GraphQLFloat,
};

/** Types whose values are numbers that may not fit a double: JSON strings under stringify-numeric-types. */
const BIG_NUMERIC = new Set(['int8', 'numeric', 'float8', 'bigserial', 'money']);

/** Types with sum/avg/stddev/variance. */
const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money', 'serial', 'bigserial', 'smallserial']);

/** Types with max/min besides the numeric ones. */
const ORDERED = new Set(['text', 'varchar', 'bpchar', 'citext', 'name', 'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'interval', 'char']);

/** Text types with the `_like`/`_regex` family. */
const TEXT = new Set(['text', 'varchar', 'bpchar', 'citext', 'name', 'char']);

/** v2 compat: ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES applies to bigint, numeric and double precision. */
export function isBigNumeric(dbType: string): boolean {
  return BIG_NUMERIC.has(dbType);
}

/** Whether sum/avg/stddev/variance apply. */
export function isNumeric(dbType: string): boolean {
  return NUMERIC.has(dbType);
}

/** Whether max/min apply. */
export function isOrdered(dbType: string, typeCategory: string): boolean {
  return NUMERIC.has(dbType) || ORDERED.has(dbType) || typeCategory === 'enum';
}

/** Whether the text operator family applies. */
export function isText(dbType: string): boolean {
  return TEXT.has(dbType);
}

export { scalarName } from '../../catalog/graphql-names.ts';

/**
 * A literal's value. Numbers keep their source text (bigint/numeric keep full
 * precision) except inside JSON values, where they are JSON numbers.
 */
function literalValue(node: ValueNode, json: boolean): unknown {
  switch (node.kind) {
    case Kind.INT:
    case Kind.FLOAT:
      return json ? Number(node.value) : node.value;
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => literalValue(v, json));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalValue(f.value, json)]));
    case Kind.VARIABLE:
      return undefined;
  }
}

/**
 * A scalar that passes values through: literals keep their source text
 * (bigint/numeric keep full precision), objects stay objects (json/jsonb).
 * Output is JSON built by the database, so serialize is never on the data path.
 */
function passThroughScalar(name: string, json: boolean): GraphQLScalarType {
  return new GraphQLScalarType({
    name,
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: (node) => literalValue(node, json),
  });
}

/** Scalars of one schema, created on first use so each name has one type object. */
export class ScalarRegistry {
  readonly #byName = new Map<string, GraphQLScalarType>();

  /** The scalar type for a database type. */
  forDbType(dbType: string): GraphQLScalarType {
    const b = BUILTIN[dbType];
    if (b !== undefined) return b;
    const name = scalarName(dbType);
    let t = this.#byName.get(name);
    if (t === undefined) {
      t = passThroughScalar(name, dbType === 'json' || dbType === 'jsonb');
      this.#byName.set(name, t);
    }
    return t;
  }
}
