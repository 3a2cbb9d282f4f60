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
  assertName,
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
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLField,
  type GraphQLFieldConfigMap,
  type GraphQLFieldMap,
  type GraphQLInputFieldConfig,
  type GraphQLInputField,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputFieldMap,
  type GraphQLInputObjectTypeConfig,
  type GraphQLNamedType,
  type GraphQLInputType,
  type GraphQLNullableType,
  type GraphQLObjectTypeConfig,
  type GraphQLOutputType,
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

/**
 * Note [Configurations in dictionaries]
 * A `{}` that gets a table's field names as keys (its relationships:
 * `prev_t00001`, `next_t00003s`) makes V8 create a hidden class, with its
 * descriptors, for each key added, new for each table since the names are;
 * V8 allocates those in the old generation, where they stay after the
 * configuration map is dropped until the next full collection. So
 * configuration maps keyed by such names start as null-prototype
 * dictionaries ({@link configMap}), which take keys without hidden
 * classes, as the field maps made from them do (Note [Fields made
 * directly]). Maps keyed by column and argument names alone are left as
 * they are: their keys repeat from table to table, so their hidden classes
 * are shared. Measured in Note [What the builds promote] in
 * schema-cache.ts.
 */

/** An empty map of field (or argument) configurations, keyed by names that differ from table to table. */
export function configMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The extensions of every element that has none (kept as given by graphql-js). */
export const NO_EXTENSIONS: Readonly<Record<string, never>> = Object.freeze(nullProto({}));

function resolve<T>(fields: ThunkObjMap<T>): Record<string, T> {
  return typeof fields === 'function' ? fields() : fields;
}

function leanValues(values: GraphQLEnumValueConfigMap): GraphQLEnumValueConfigMap {
  for (const name in values) (values[name] as GraphQLEnumValueConfig).extensions ??= NO_EXTENSIONS;
  return values;
}

/** The argument list of every field without arguments. */
const NO_ARGS: readonly GraphQLArgument[] = Object.freeze([]);

/** The interfaces and extension AST nodes of every generated type (none). */
const NONE: readonly never[] = Object.freeze([]);

/** The field configuration graphql-js gets (never read: Note [Fields made directly]). */
const NO_FIELDS: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Set on an argument map to the argument list first made from it: see Note
 * [Shared fields]. A property, not a WeakMap keyed by the maps (see the
 * `T!` wrappers below); not enumerable, so neither a spread nor
 * Object.entries takes it along.
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
/**
 * Set on the types made by the generated* constructors below: Note [Which
 * types are validated] in collect-types.ts. A property, not a WeakSet: a
 * WeakSet of 84,000 new types made every young collection of the build
 * walk it (the admin schema of 2,000 tables took 150 ms longer).
 */
const GENERATED: unique symbol = Symbol('generated');
type Marked = { [GENERATED]?: boolean };

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

/**
 * Set on the types known valid (collect-types.ts: Note [Which types are
 * validated]).
 */
export const VALID_MARK: unique symbol = Symbol('valid');

/** Set on a type to the number of the collecting walk that saw it last (collect-types.ts: Note [Walk marks]). */
export const SEEN_MARK: unique symbol = Symbol('seen');

/** graphql-js 16's slots of a type's fields and interfaces (thunks until first read): see Note [Fields made directly]. */
interface FieldSlot {
  _fields: unknown;
  _interfaces?: unknown;
}

/**
 * Note [Fields made directly]
 * graphql-js makes a type's fields from its configuration on first read
 * (defineFieldMap, defineInputFieldMap, defineArguments): through
 * Object.entries (an array and a pair per field), toObjMap per element and a
 * dictionary per type. For the few hundred thousand fields of a first build
 * at 2,000 tables the lean types make the same objects themselves
 * ({@link defineFields}, {@link defineInputFields}): the same properties in
 * graphql-js's order, names asserted by graphql-js's assertName, extensions
 * as toObjMap keeps them (absent: {@link NO_EXTENSIONS}), shared argument
 * lists (Note [Shared fields]), and set them in graphql-js's `_fields` slot;
 * graphql-js's own thunks there (and of `_interfaces`), which hold the
 * type's configuration until first read, are replaced at construction so
 * they die young instead of being promoted with the type (graphql is pinned in package-lock.json;
 * test/unit/graphql/lean-types.test.ts compares the fields with
 * graphql-js's own).
 * What settled it: the admin schema of 2,000 synthetic tables
 * (test/support/synthetic-source.ts) built and asked one query, 5 runs
 * alternated with the commit before, load 11-13, CPU ms: median 1,731 →
 * 1,489, and 1,434 → 1,363 for the thunks replaced at construction.
 * Re-measure: `NODE_ENV=production node test/bench/track-profile.ts 2000 10
 * 0` beside a worktree of the commit before (the admin's line).
 */

/** graphql-js's toObjMap, absent extensions being {@link NO_EXTENSIONS}. */
function objMap(e: Readonly<Record<string, unknown>> | null | undefined): Readonly<Record<string, unknown>> {
  if (e === undefined || e === null) return NO_EXTENSIONS;
  if (Object.getPrototypeOf(e) === null) return e;
  // String keys only, as graphql-js's Object.entries.
  const map = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(e)) map[key] = e[key];
  return map;
}

/** The arguments of a field made from `config`: one list per map (Note [Shared fields]). */
function defineArguments(config: ArgumentMap | undefined): readonly GraphQLArgument[] {
  if (config === undefined) return NO_ARGS;
  const shared = config[ARGUMENT_LIST];
  if (shared !== undefined) return shared;
  const list: GraphQLArgument[] = [];
  for (const name in config) {
    const a = config[name] as GraphQLArgumentConfig;
    if (a.defaultValue === undefined && a.deprecationReason === undefined && a.astNode === undefined) {
      // Note [Field defaults on a prototype].
      list.push(new LeanInputValue(assertName(name), a.description, a.type, objMap(a.extensions)) as unknown as GraphQLArgument);
      continue;
    }
    list.push({
      name: assertName(name),
      description: a.description,
      type: a.type,
      defaultValue: a.defaultValue,
      deprecationReason: a.deprecationReason,
      extensions: objMap(a.extensions),
      astNode: a.astNode,
    });
  }
  if (list.length === 0) return NO_ARGS;
  // Not enumerable: a map spread into a larger one (`{...listArgs, args}`) must not take the list along.
  if (Object.isExtensible(config)) Object.defineProperty(config, ARGUMENT_LIST, { value: list });
  return list;
}

/**
 * Note [Field defaults on a prototype]
 * A first build at 2,000 tables × 10 roles keeps about 300,000 input fields
 * and arguments and 130,000 fields (`node --expose-gc
 * test/bench/schema-memory.ts 2000 10 --snapshot <dir>`, then
 * heap-summary.ts): 23 and 12 MiB, a quarter of the schemas' heap, as
 * objects of graphql-js's 7 and 9 properties, of
 * which `defaultValue`, `deprecationReason`, `astNode` (and `resolve`,
 * `subscribe`) are undefined on nearly all. graphql-js and the engine only
 * read those properties (none lists a field's own keys, or copies one), so
 * a field whose configuration leaves them undefined is a {@link LeanField}
 * or {@link LeanInputValue} (an input field or an argument, which have the
 * same properties): its own properties are the others, and the
 * undefined ones are its prototype's. 24 and 32 bytes less per field; a
 * field with any of them set is made as before. The values every property
 * reads are graphql-js's (test/unit/graphql/lean-types.test.ts).
 * Measured in Note [What the builds promote] in schema-cache.ts.
 */
class LeanField {
  readonly name: string;
  readonly description: string | null | undefined;
  readonly type: GraphQLOutputType;
  readonly args: readonly GraphQLArgument[];
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(
    name: string,
    description: string | null | undefined,
    type: GraphQLOutputType,
    args: readonly GraphQLArgument[],
    extensions: Readonly<Record<string, unknown>>,
  ) {
    this.name = name;
    this.description = description;
    this.type = type;
    this.args = args;
    this.extensions = extensions;
  }
}

class LeanInputValue {
  readonly name: string;
  readonly description: string | null | undefined;
  readonly type: GraphQLInputType;
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(name: string, description: string | null | undefined, type: GraphQLInputType, extensions: Readonly<Record<string, unknown>>) {
    this.name = name;
    this.description = description;
    this.type = type;
    this.extensions = extensions;
  }
}

/**
 * An empty field map for the fields of `configs`: a dictionary when the
 * configurations are (their keys are per-table names: Note [Configurations
 * in dictionaries]), else an object V8 keeps in fast mode once given its
 * null prototype ({@link nullProto}), whose hidden classes tables with the
 * same columns share: a column-keyed map of 7 fields was a 448-byte
 * dictionary, 7,992 of them at 2,000 tables × 10 roles (heap-summary.ts
 * `--retainers`). Where columns differ from table to table the fast map
 * costs no more: an input type of 7 fields kept 1,382 → 1,343 bytes with
 * names of its own and 1,226 → 684 with names every type shares (`node
 * --expose-gc test/bench/field-map-shapes.ts <checkout> unique|shared`,
 * 6540b48 against this, 2026-11-29 01:29 UTC); choosing by whether a key
 * sequence was seen before cost more (1,653 with names of its own).
 */
function fieldMapLike<T>(configs: object): Record<string, T> {
  return (Object.getPrototypeOf(configs) === null ? Object.create(null) : {}) as Record<string, T>;
}

/** Undefined, and writable as graphql-js's own properties are (an assignment makes an own property). */
const UNDEFINED: PropertyDescriptor = { value: undefined, writable: true, enumerable: true, configurable: true };
Object.defineProperties(LeanField.prototype, { resolve: UNDEFINED, subscribe: UNDEFINED, deprecationReason: UNDEFINED, astNode: UNDEFINED });
Object.defineProperties(LeanInputValue.prototype, { defaultValue: UNDEFINED, deprecationReason: UNDEFINED, astNode: UNDEFINED });

/** graphql-js's defineFieldMap of `fields`: Note [Fields made directly]. */
function defineFields(fields: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldMap<unknown, unknown> {
  const map = fieldMapLike<GraphQLField<unknown, unknown>>(fields);
  for (const name in fields) {
    const f = fields[name] as GraphQLFieldConfig<unknown, unknown>;
    if (f.resolve === undefined && f.subscribe === undefined && f.deprecationReason === undefined && f.astNode === undefined) {
      // Note [Field defaults on a prototype].
      map[name] = new LeanField(assertName(name), f.description, f.type, defineArguments(f.args), objMap(f.extensions)) as unknown as GraphQLField<
        unknown,
        unknown
      >;
      continue;
    }
    map[name] = {
      name: assertName(name),
      description: f.description,
      type: f.type,
      args: defineArguments(f.args),
      resolve: f.resolve,
      subscribe: f.subscribe,
      deprecationReason: f.deprecationReason,
      extensions: objMap(f.extensions),
      astNode: f.astNode,
    };
  }
  return nullProto(map);
}

/** graphql-js's defineInputFieldMap of `fields`: Note [Fields made directly]. */
function defineInputFields(fields: GraphQLInputFieldConfigMap): GraphQLInputFieldMap {
  const map = fieldMapLike<GraphQLInputField>(fields);
  for (const name in fields) {
    const f = fields[name] as GraphQLInputFieldConfig;
    if (f.defaultValue === undefined && f.deprecationReason === undefined && f.astNode === undefined) {
      // Note [Field defaults on a prototype].
      map[name] = new LeanInputValue(assertName(name), f.description, f.type, objMap(f.extensions)) as unknown as GraphQLInputField;
      continue;
    }
    map[name] = {
      name: assertName(name),
      description: f.description,
      type: f.type,
      defaultValue: f.defaultValue,
      deprecationReason: f.deprecationReason,
      extensions: objMap(f.extensions),
      astNode: f.astNode,
    };
  }
  return nullProto(map);
}

class LeanObjectType extends GraphQLObjectType {
  // The marks, declared so that they live in the object rather than in a property array made per type.
  [GENERATED]: boolean | undefined = undefined;
  [VALID_MARK]: boolean | undefined = undefined;
  [SEEN_MARK]: number | undefined = undefined;
  [NON_NULL]: GraphQLNonNull<GraphQLNullableType> | undefined = undefined;
  [LIST]: GraphQLList<GraphQLType> | undefined = undefined;
  readonly #sameAs: GraphQLObjectType | undefined;
  /** The field configuration, until the fields are made. */
  #fields: ThunkObjMap<GraphQLFieldConfig<unknown, unknown>> | undefined;

  constructor(
    config: GraphQLObjectTypeConfig<unknown, unknown>,
    sameAs: GraphQLObjectType | undefined,
    fields: ThunkObjMap<GraphQLFieldConfig<unknown, unknown>> | undefined,
  ) {
    super(config);
    // graphql-js's thunks hold `config` until read: emptied now, they die young (Note [Fields made directly]).
    const slots = this as unknown as FieldSlot;
    slots._fields = NO_FIELDS;
    if (Array.isArray(config.interfaces)) slots._interfaces = config.interfaces;
    this.#sameAs = sameAs;
    this.#fields = fields;
  }

  override getFields(): GraphQLFieldMap<unknown, unknown> {
    if (this.#sameAs !== undefined) return this.#sameAs.getFields();
    const fields = this.#fields;
    if (fields !== undefined) {
      this.#fields = undefined;
      (this as unknown as FieldSlot)._fields = defineFields(resolve(fields));
    }
    return super.getFields();
  }
}

class LeanInputObjectType extends GraphQLInputObjectType {
  // The marks, declared so that they live in the object rather than in a property array made per type.
  [GENERATED]: boolean | undefined = undefined;
  [VALID_MARK]: boolean | undefined = undefined;
  [SEEN_MARK]: number | undefined = undefined;
  [NON_NULL]: GraphQLNonNull<GraphQLNullableType> | undefined = undefined;
  [LIST]: GraphQLList<GraphQLType> | undefined = undefined;
  readonly #sameAs: GraphQLInputObjectType | undefined;
  /** The field configuration, until the fields are made. */
  #fields: ThunkObjMap<GraphQLInputFieldConfig> | undefined;

  constructor(config: GraphQLInputObjectTypeConfig, sameAs: GraphQLInputObjectType | undefined, fields: ThunkObjMap<GraphQLInputFieldConfig> | undefined) {
    super(config);
    (this as unknown as FieldSlot)._fields = NO_FIELDS;
    this.#sameAs = sameAs;
    this.#fields = fields;
  }

  override getFields(): GraphQLInputFieldMap {
    if (this.#sameAs !== undefined) return this.#sameAs.getFields();
    const fields = this.#fields;
    if (fields !== undefined) {
      this.#fields = undefined;
      (this as unknown as FieldSlot)._fields = defineInputFields(resolve(fields));
    }
    return super.getFields();
  }
}

/**
 * A GraphQLObjectType whose type, fields and arguments default to
 * {@link NO_EXTENSIONS}, with shared argument lists; with `sameFieldsAs`,
 * showing that type's fields (`config.fields` is then not read). See Note [Shared fields].
 */
export function objectType(config: GraphQLObjectTypeConfig<unknown, unknown>, sameFieldsAs?: GraphQLObjectType): GraphQLObjectType {
  return new LeanObjectType(
    {
      ...config,
      // Relay's table types implement Node (relay-types.ts); every other type implements nothing.
      interfaces: config.interfaces ?? NONE,
      extensionASTNodes: NONE,
      extensions: config.extensions ?? NO_EXTENSIONS,
      // Never read: the fields are made by LeanObjectType (Note [Fields made directly]).
      fields: NO_FIELDS,
    },
    sameFieldsAs,
    sameFieldsAs === undefined ? config.fields : undefined,
  );
}

/**
 * A GraphQLInputObjectType whose type and fields default to
 * {@link NO_EXTENSIONS}; with `sameFieldsAs`, showing that type's fields.
 */
export function inputObjectType(config: GraphQLInputObjectTypeConfig, sameFieldsAs?: GraphQLInputObjectType): GraphQLInputObjectType {
  return new LeanInputObjectType(
    { ...config, extensionASTNodes: NONE, extensions: config.extensions ?? NO_EXTENSIONS, fields: NO_FIELDS },
    sameFieldsAs,
    sameFieldsAs === undefined ? config.fields : undefined,
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

/** Marks `type` (a root type of generated fields only, root-types.ts) as generated: see {@link generatedObjectType}. */
export function markGenerated<T extends GraphQLNamedType>(type: T): T {
  (type as Marked)[GENERATED] = true;
  return type;
}

/** {@link enumType} for a type generated from the catalog: see {@link generatedObjectType}. */
export function generatedEnumType(config: GraphQLEnumTypeConfig): GraphQLEnumType {
  const t = enumType(config);
  (t as Marked)[GENERATED] = true;
  return t;
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
