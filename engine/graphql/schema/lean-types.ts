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
  GraphQLObjectType,
  type GraphQLEnumTypeConfig,
  type GraphQLEnumValueConfigMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputObjectTypeConfig,
  type GraphQLObjectTypeConfig,
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

function leanFields(fields: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> {
  for (const f of Object.values(fields)) {
    f.extensions ??= NO_EXTENSIONS;
    for (const a of Object.values(f.args ?? {})) a.extensions ??= NO_EXTENSIONS;
  }
  return fields;
}

function leanInputFields(fields: GraphQLInputFieldConfigMap): GraphQLInputFieldConfigMap {
  for (const f of Object.values(fields)) f.extensions ??= NO_EXTENSIONS;
  return fields;
}

function leanValues(values: GraphQLEnumValueConfigMap): GraphQLEnumValueConfigMap {
  for (const v of Object.values(values)) v.extensions ??= NO_EXTENSIONS;
  return values;
}

/** A GraphQLObjectType whose type, fields and arguments default to {@link NO_EXTENSIONS}. */
export function objectType(config: GraphQLObjectTypeConfig<unknown, unknown>): GraphQLObjectType {
  const { fields } = config;
  return new GraphQLObjectType({
    ...config,
    extensions: config.extensions ?? NO_EXTENSIONS,
    fields: typeof fields === 'function' ? () => leanFields(resolve(fields)) : leanFields(fields),
  });
}

/** A GraphQLInputObjectType whose type and fields default to {@link NO_EXTENSIONS}. */
export function inputObjectType(config: GraphQLInputObjectTypeConfig): GraphQLInputObjectType {
  const { fields } = config;
  return new GraphQLInputObjectType({
    ...config,
    extensions: config.extensions ?? NO_EXTENSIONS,
    fields: typeof fields === 'function' ? () => leanInputFields(resolve(fields)) : leanInputFields(fields),
  });
}

/** A GraphQLEnumType whose type and values default to {@link NO_EXTENSIONS}. */
export function enumType(config: GraphQLEnumTypeConfig): GraphQLEnumType {
  const { values } = config;
  return new GraphQLEnumType({
    ...config,
    extensions: config.extensions ?? NO_EXTENSIONS,
    values: typeof values === 'function' ? () => leanValues(resolve(values)) : leanValues(values),
  });
}
