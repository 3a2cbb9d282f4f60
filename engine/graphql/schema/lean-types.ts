/**
 * Constructors of the generated object, input object and enum types that
 * keep graphql-js from allocating an `extensions` object per schema element.
 *
 * Note [Lean extensions]
 * graphql-js stores the `extensions` of every type, field, argument, input
 * field and enum value through its toObjMap: a null-prototype object is kept
 * as given, anything else (absent included) is copied into a fresh
 * `Object.create(null)`, which V8 makes a dictionary-mode object of about
 * 200 bytes. With a few hundred thousand elements per schema at 2,000
 * tables, those copies were half of a role schema's heap (measured with
 * test/bench/heap-summary.ts). So elements without extensions get the one
 * frozen {@link NO_EXTENSIONS}, and extensions holding something are made
 * fast-mode objects with a null prototype ({@link nullProto}), often shared
 * by many elements (descriptors.ts).
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLArgument,
  type GraphQLArgumentConfig,
  type GraphQLEnumTypeConfig,
  type GraphQLEnumValueConfigMap,
  type GraphQLEnumValueConfig,
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLFieldMap,
  type GraphQLInputFieldConfig,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputFieldMap,
  type GraphQLInputObjectTypeConfig,
  type GraphQLNamedType,
  type GraphQLNullableType,
  type GraphQLObjectTypeConfig,
  type GraphQLType,
  type ThunkObjMap,
} from 'graphql';

/**
 * `o` with a null prototype. Unlike `Object.create(null)` or a
 * `{__proto__: null}` literal, V8 keeps such an object in fast mode.
 */
export function nullProto<T extends object>(o: T): T {
  return Object.setPrototypeOf(o, null) as T;
}

/** The extensions of every element that has none (kept as given by graphql-js). */
export const NO_EXTENSIONS: Readonly<Record<string, never>> = Object.freeze(nullProto({}));

function resolve<T>(fields: ThunkObjMap<T>): Record<string, T> {
  return typeof fields === 'function' ? fields() : fields;
}

/**
 * The fields with their (and their arguments') extensions defaulted, and
 * the argument map of each field with arguments put in `args`. Loops by
 * `for in`: Object.entries and Object.values allocated an array per type
 * (and a pair per field) of a few hundred thousand fields.
 */
function leanFields(
  fields: GraphQLFieldConfigMap<unknown, unknown>,
  args: Map<string, GraphQLFieldConfigArgumentMap> | undefined,
): GraphQLFieldConfigMap<unknown, unknown> {
  for (const name in fields) {
    const f = fields[name] as GraphQLFieldConfig<unknown, unknown>;
    f.extensions ??= NO_EXTENSIONS;
    const a = f.args;
    if (a === undefined) continue;
    let any = false;
    for (const k in a) {
      (a[k] as GraphQLArgumentConfig).extensions ??= NO_EXTENSIONS;
      any = true;
    }
    if (any) args?.set(name, a);
  }
  return fields;
}

function leanInputFields(fields: GraphQLInputFieldConfigMap): GraphQLInputFieldConfigMap {
  for (const name in fields) (fields[name] as GraphQLInputFieldConfig).extensions ??= NO_EXTENSIONS;
  return fields;
}

function leanValues(values: GraphQLEnumValueConfigMap): GraphQLEnumValueConfigMap {
  for (const name in values) (values[name] as GraphQLEnumValueConfig).extensions ??= NO_EXTENSIONS;
  return values;
}

/** The argument list of every field without arguments. */
const NO_ARGS: readonly GraphQLArgument[] = Object.freeze([]);

/** The interfaces and extension AST nodes of every generated type (none). */
const NONE: readonly never[] = Object.freeze([]);

/** The (unread) field configuration of a type showing another's fields. */
const NO_FIELDS: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Set on an argument map to the argument list first made from it: see Note
 * [Shared fields]. A property, not a WeakMap keyed by the maps: see
 * lean-types' wrappers below. Object.entries (graphql-js's reading of the
 * map) leaves symbol keys out.
 */
const ARGUMENT_LIST: unique symbol = Symbol('argumentList');
type ArgumentMap = GraphQLFieldConfigArgumentMap & { [ARGUMENT_LIST]?: readonly GraphQLArgument[] };

/**
 * Note [Shared fields]
 * graphql-js makes a GraphQLField, its argument list and GraphQLArgument
 * objects anew for every field of every type. Neither refers to the type
 * holding it, so they can be shared:
 * - fields made from the same argument map (`SchemaTypes.listArgs` gives one
 *   per table: the root list and aggregate fields and every array
 *   relationship to that table) get one argument list, and fields without
 *   arguments one frozen empty list;
 * - a type may show the very fields of another (`sameFieldsAs`): the
 *   `subscription_root` those of `query_root`, the `<t>_<op>_fields` and
 *   `<t>_<op>_order_by` of operators over the same columns and output type
 *   (avg, stddev..., variance) those of the first of them.
 * The types override `getFields` for this: graphql-js and to-ir read fields
 * only through it.
 */
class LeanObjectType extends GraphQLObjectType {
  readonly #sameAs: GraphQLObjectType | undefined;
  /** The argument map of each field with arguments, until the fields are made. */
  #args: Map<string, GraphQLFieldConfigArgumentMap> | undefined;

  constructor(
    config: GraphQLObjectTypeConfig<unknown, unknown>,
    sameAs: GraphQLObjectType | undefined,
    args: Map<string, GraphQLFieldConfigArgumentMap> | undefined,
  ) {
    super(config);
    this.#sameAs = sameAs;
    this.#args = args;
  }

  override getFields(): GraphQLFieldMap<unknown, unknown> {
    if (this.#sameAs !== undefined) return this.#sameAs.getFields();
    const fields = super.getFields();
    const args = this.#args;
    if (args !== undefined) {
      this.#args = undefined;
      for (const name in fields) {
        const field = fields[name] as GraphQLField<unknown, unknown>;
        const config = args.get(name) as ArgumentMap | undefined;
        if (config === undefined) {
          if (field.args.length === 0) field.args = NO_ARGS;
          continue;
        }
        const shared = config[ARGUMENT_LIST];
        // Not enumerable: a map spread into a larger one (`{...listArgs, args}`) must not take the list along.
        if (shared !== undefined) field.args = shared;
        else if (Object.isExtensible(config)) Object.defineProperty(config, ARGUMENT_LIST, { value: field.args });
      }
    }
    return fields;
  }
}

class LeanInputObjectType extends GraphQLInputObjectType {
  readonly #sameAs: GraphQLInputObjectType | undefined;

  constructor(config: GraphQLInputObjectTypeConfig, sameAs: GraphQLInputObjectType | undefined) {
    super(config);
    this.#sameAs = sameAs;
  }

  override getFields(): GraphQLInputFieldMap {
    return this.#sameAs !== undefined ? this.#sameAs.getFields() : super.getFields();
  }
}

/**
 * A GraphQLObjectType whose type, fields and arguments default to
 * {@link NO_EXTENSIONS}, with shared argument lists; with `sameFieldsAs`,
 * showing that type's fields (`config.fields` is then not read). See Note [Shared fields].
 */
export function objectType(config: GraphQLObjectTypeConfig<unknown, unknown>, sameFieldsAs?: GraphQLObjectType): GraphQLObjectType {
  const args = sameFieldsAs === undefined ? new Map<string, GraphQLFieldConfigArgumentMap>() : undefined;
  const lean = (fields: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> => leanFields(fields, args);
  const { fields } = config;
  return new LeanObjectType(
    {
      ...config,
      // Relay's table types implement Node (relay-types.ts); every other type implements nothing.
      interfaces: config.interfaces ?? NONE,
      extensionASTNodes: NONE,
      extensions: config.extensions ?? NO_EXTENSIONS,
      fields: sameFieldsAs !== undefined ? NO_FIELDS : typeof fields === 'function' ? () => lean(resolve(fields)) : lean(fields),
    },
    sameFieldsAs,
    args,
  );
}

/**
 * A GraphQLInputObjectType whose type and fields default to
 * {@link NO_EXTENSIONS}; with `sameFieldsAs`, showing that type's fields.
 */
export function inputObjectType(config: GraphQLInputObjectTypeConfig, sameFieldsAs?: GraphQLInputObjectType): GraphQLInputObjectType {
  const { fields } = config;
  return new LeanInputObjectType(
    {
      ...config,
      extensionASTNodes: NONE,
      extensions: config.extensions ?? NO_EXTENSIONS,
      fields: sameFieldsAs !== undefined ? NO_FIELDS : typeof fields === 'function' ? () => leanInputFields(resolve(fields)) : leanInputFields(fields),
    },
    sameFieldsAs,
  );
}

/** A GraphQLEnumType whose type and values default to {@link NO_EXTENSIONS}. */
export function enumType(config: GraphQLEnumTypeConfig): GraphQLEnumType {
  const { values } = config;
  return new GraphQLEnumType({
    ...config,
    extensionASTNodes: NONE,
    extensions: config.extensions ?? NO_EXTENSIONS,
    values: typeof values === 'function' ? () => leanValues(resolve(values)) : leanValues(values),
  });
}

/**
 * Set on the types made by the generated* constructors below: Note [Which
 * types are validated] in collect-types.ts. A property, not a WeakSet: a
 * WeakSet of 84,000 new types made every young collection of the build
 * walk it (the admin schema of 2,000 tables took 150 ms longer).
 */
const GENERATED: unique symbol = Symbol('generated');
type Marked = { [GENERATED]?: true };

/** Whether `type` was made by a generated* constructor (from the catalog's checked names): Note [Which types are validated] in collect-types.ts. */
export function isGenerated(type: GraphQLNamedType): boolean {
  return (type as Marked)[GENERATED] === true;
}

/**
 * {@link objectType} for a type generated from the catalog (tables, their
 * aggregates, mutations, streams): its checks before trusting it are in
 * Note [Which types are validated] in collect-types.ts. Types with names or
 * shapes from outside (actions, remote schemas, namespaces) use objectType.
 */
export function generatedObjectType(config: GraphQLObjectTypeConfig<unknown, unknown>, sameFieldsAs?: GraphQLObjectType): GraphQLObjectType {
  const t = objectType(config, sameFieldsAs);
  (t as Marked)[GENERATED] = true;
  return t;
}

/** {@link inputObjectType} for a type generated from the catalog: see {@link generatedObjectType}. */
export function generatedInputObjectType(config: GraphQLInputObjectTypeConfig, sameFieldsAs?: GraphQLInputObjectType): GraphQLInputObjectType {
  const t = inputObjectType(config, sameFieldsAs);
  (t as Marked)[GENERATED] = true;
  return t;
}

/** {@link enumType} for a type generated from the catalog: see {@link generatedObjectType}. */
export function generatedEnumType(config: GraphQLEnumTypeConfig): GraphQLEnumType {
  const t = enumType(config);
  (t as Marked)[GENERATED] = true;
  return t;
}

/**
 * Each type's `T!` and `[T]` wrappers, kept on the type itself: as WeakMaps
 * keyed by the 84,000 new types of a first build they made every young
 * collection walk them (see Note [Which types are validated] in
 * collect-types.ts for the measurement).
 */
const NON_NULL: unique symbol = Symbol('nonNull');
const LIST: unique symbol = Symbol('list');
interface Wrapped {
  [NON_NULL]?: GraphQLNonNull<GraphQLNullableType>;
  [LIST]?: GraphQLList<GraphQLType>;
}

/** `T!`, one wrapper per type. */
export function nonNull<T extends GraphQLNullableType>(type: T): GraphQLNonNull<T> {
  const w = type as Wrapped;
  return (w[NON_NULL] ??= new GraphQLNonNull(type)) as GraphQLNonNull<T>;
}

/** `[T]`, one wrapper per type. */
export function listOf<T extends GraphQLType>(type: T): GraphQLList<T> {
  const w = type as Wrapped;
  return (w[LIST] ??= new GraphQLList(type)) as GraphQLList<T>;
}

/** `[T!]`. */
export function listOfNonNull<T extends GraphQLNullableType>(type: T): GraphQLList<GraphQLNonNull<T>> {
  return listOf(nonNull(type));
}

/** `[T!]!`. */
export function nonNullListOfNonNull<T extends GraphQLNullableType>(type: T): GraphQLNonNull<GraphQLList<GraphQLNonNull<T>>> {
  return nonNull(listOf(nonNull(type)));
}
