/**
 * Database type → GraphQL scalar. The source's backend says how each
 * database type appears (ScalarInfo in backends/backend.ts: scalar name,
 * operator family, parameter encoding, aggregate classes); this module makes
 * the graphql-js types of it. See Note [Backend seam] in backends/registry.ts.
 */
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString, isScalarType, Kind, type GraphQLNamedType, type ValueNode } from 'graphql';
import type { ComparisonSupport, NullsDefaults, ScalarInfo, TypeNames } from '../../backends/backend.ts';
import { backendOf } from '../../backends/registry.ts';
import type { SourceInfo } from '../../catalog/types.ts';
import { scalarName } from '../../catalog/graphql-names.ts';

/** The built-in GraphQL scalars a backend may map a type to. */
const BUILTIN: Readonly<Record<string, GraphQLScalarType>> = {
  Int: GraphQLInt,
  String: GraphQLString,
  Boolean: GraphQLBoolean,
  Float: GraphQLFloat,
};

/** A source: anything that knows its backend. */
type OfKind = Pick<SourceInfo, 'kind' | 'backend'>;

/** How `source`'s backend presents a database type. */
export function scalarInfo(source: OfKind, dbType: string): ScalarInfo {
  return backendOf(source).scalar(dbType);
}

/** The database types `source`'s backend has the IR carry where no column gives one (counts, booleans, text). */
export function typeNames(source: OfKind): TypeNames {
  return backendOf(source).types;
}

/** v2 compat: PostgreSQL's `asc` is nulls last, its `desc` nulls first. */
const POSTGRES_NULLS: NullsDefaults = { asc: 'last', desc: 'first' };

/** Where `asc` and `desc` put nulls on `source` (its backend's order; PostgreSQL's when it names none). */
export function nullsDefaults(source: OfKind): NullsDefaults {
  return backendOf(source).nullsDefaults ?? POSTGRES_NULLS;
}

/** The text operators and comparison type names of `source`'s backend; undefined: PostgreSQL's (all of them). */
export function comparisonSupport(source: OfKind): ComparisonSupport | undefined {
  return backendOf(source).comparisons;
}

/** How a value of the type is sent as a parameter: JSON-encoded or as given. */
export function valueEncoding(source: OfKind, dbType: string): 'json' | 'plain' {
  return scalarInfo(source, dbType).encoding;
}

/** v2 compat: ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES applies to bigint, numeric and double precision. */
export function isBigNumeric(source: OfKind, dbType: string): boolean {
  return scalarInfo(source, dbType).bigNumeric;
}

/** Whether sum/avg/stddev/variance apply. */
export function isNumeric(source: OfKind, dbType: string): boolean {
  return scalarInfo(source, dbType).numeric;
}

/** Whether max/min apply. */
export function isOrdered(source: OfKind, dbType: string, typeCategory: string): boolean {
  return scalarInfo(source, dbType).ordered || typeCategory === 'enum';
}

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
function passThroughScalar(name: string, info: ScalarInfo): GraphQLScalarType {
  const json = info.encoding === 'json';
  return new GraphQLScalarType({
    name,
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: (node) => literalValue(node, json),
    extensions: { [SCALAR_INFO_EXTENSION]: info },
  });
}

/** Extension of a database type's scalar: its ScalarInfo, for layers that see only the schema (rest/). */
const SCALAR_INFO_EXTENSION = 'engineScalarInfo';

/** The backend's description of a schema's scalar made for a database type; undefined for others (built-ins, action scalars). */
export function scalarInfoOfType(t: GraphQLNamedType | null | undefined): ScalarInfo | undefined {
  return t !== null && t !== undefined && isScalarType(t) ? (t.extensions[SCALAR_INFO_EXTENSION] as ScalarInfo | undefined) : undefined;
}

/** Scalars of one schema, created on first use so each name has one type object. */
export class ScalarRegistry {
  readonly #byName = new Map<string, GraphQLScalarType>();

  /** The scalar type for a database type of `source`. */
  forDbType(source: OfKind, dbType: string): GraphQLScalarType {
    const info = scalarInfo(source, dbType);
    const b = info.builtin ? BUILTIN[info.graphqlName] : undefined;
    if (b !== undefined) return b;
    const name = scalarName(info);
    let t = this.#byName.get(name);
    if (t === undefined) {
      t = passThroughScalar(name, info);
      this.#byName.set(name, t);
    }
    return t;
  }

  /**
   * Note [Row-typed function arguments]
   * v2 compat: a function argument whose type is composite (a table's row type) is a scalar
   * named `<type>_scalar`, so it never clashes with the table's object type `<type>`; its value
   * is PostgreSQL's row literal text (`"(1,Alice)"`), passed untyped for the call to cast.
   */
  forCompositeArgument(source: OfKind, dbType: string): GraphQLScalarType {
    const name = `${scalarName(scalarInfo(source, dbType))}_scalar`;
    let t = this.#byName.get(name);
    if (t === undefined) {
      t = passThroughScalar(name, { ...scalarInfo(source, dbType), encoding: 'plain' });
      this.#byName.set(name, t);
    }
    return t;
  }
}
