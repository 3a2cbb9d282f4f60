/**
 * Note [Collection replayed across versions] (graphql/schema/collect-types.ts):
 * a schema's type collection that replays the previous version's lists the
 * same types, in the same order, with the same walk ends, as a fresh
 * collection and as graphql-js's own GraphQLSchema, whatever changed: types
 * added before, between and after the old ones, types rebuilt (with every
 * type reaching them, as SchemaTypes rebuilds them), root fields dropped and
 * reordered; and after a change that only adds, the old types' fields are
 * not read again. Note [Walk marks]: the walk's marks, its one stack of
 * references and its sized results give what a recursive walk with a Set
 * gives, on chains thousands deep and with a type that cannot be marked.
 */
import {
  __Schema,
  getNamedType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLObjectType,
  GraphQLSchema,
  isInputObjectType,
  isObjectType,
  specifiedDirectives,
  type GraphQLFieldConfigMap,
  type GraphQLNamedType,
  type GraphQLType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { collectTypes, schemaOf, type TypeCollection } from '../../../engine/graphql/schema/collect-types.ts';

/** A deterministic pseudo-random generator (so a failing seed can be replayed). */
function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return Math.floor((s / 2147483648) * n);
  };
}

/** Object types by name: each refers to the named others through fields whose argument is the target's column enum. */
type Spec = Map<string, string[]>;

interface Built {
  readonly objects: Map<string, GraphQLObjectType>;
  /** The column enum of each object, shared by every version (as LeafTypes are). */
  readonly enums: Map<string, GraphQLEnumType>;
  /** How many times each object's fields were read. */
  readonly reads: Map<string, number>;
}

/** The types of `spec`, taking those of `keep` as they are (the previous version's objects). */
function build(spec: Spec, keep: ReadonlyMap<string, GraphQLObjectType>, reads: Map<string, number>, enums = new Map<string, GraphQLEnumType>()): Built {
  const objects = new Map(keep);
  const enumOf = (name: string): GraphQLEnumType => {
    let e = enums.get(name);
    if (e === undefined) {
      e = new GraphQLEnumType({ name: `${name}_column`, values: { id: { value: 'id' } } });
      enums.set(name, e);
    }
    return e;
  };
  for (const [name, refs] of spec) {
    if (objects.has(name)) continue;
    objects.set(
      name,
      new GraphQLObjectType({
        name,
        fields: () => {
          reads.set(name, (reads.get(name) ?? 0) + 1);
          const fields: GraphQLFieldConfigMap<unknown, unknown> = { id: { type: GraphQLInt } };
          refs.forEach((r, i) => {
            fields[`f${i}_${r}`] = { type: objects.get(r) as GraphQLObjectType, args: { col: { type: enumOf(r) } } };
          });
          return fields;
        },
      }),
    );
  }
  return { objects, enums, reads };
}

function root(name: string, objects: ReadonlyMap<string, GraphQLObjectType>, fields: readonly string[]): GraphQLObjectType | undefined {
  if (fields.length === 0) return undefined;
  return new GraphQLObjectType({ name, fields: () => Object.fromEntries(fields.map((f) => [`all_${f}`, { type: objects.get(f) as GraphQLObjectType }])) });
}

/** graphql-js's own collection of these roots. */
function plain(query: GraphQLObjectType, mutation: GraphQLObjectType | undefined): GraphQLNamedType[] {
  return Object.values(new GraphQLSchema({ query, ...(mutation === undefined ? {} : { mutation }) }).getTypeMap());
}

/** Types `changed` and every type reaching them (what SchemaTypes rebuilds when those tables change). */
function withReferrers(spec: Spec, changed: Set<string>): Set<string> {
  const out = new Set(changed);
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, refs] of spec) {
      if (!out.has(name) && refs.some((r) => out.has(r))) {
        out.add(name);
        grew = true;
      }
    }
  }
  return out;
}

interface Version {
  readonly spec: Spec;
  readonly built: Built;
  readonly queryFields: string[];
  readonly mutationFields: string[];
  readonly collection: TypeCollection;
}

/** Collects a version's types both ways, checks they agree with graphql-js, and returns its collection for the next. */
function collectVersion(spec: Spec, built: Built, queryFields: string[], mutationFields: string[], previous: TypeCollection | undefined): Version {
  const query = root('query_root', built.objects, queryFields) as GraphQLObjectType;
  const mutation = root('mutation_root', built.objects, mutationFields);
  const expected = plain(query, mutation);
  const fresh = collectTypes([query, mutation]);
  const replayed = collectTypes([query, mutation], previous);
  expect(fresh.types).toEqual(expected);
  expect(replayed.types.length).toBe(expected.length);
  replayed.types.forEach((t, i) => expect(t, `type ${i}`).toBe(expected[i]));
  expect([...replayed.ends]).toEqual([...fresh.ends]);
  const collection = schemaOf(query, mutation, undefined, previous);
  expect(Object.values(collection.schema.getTypeMap())).toEqual(expected);
  expect([...collection.ends]).toEqual([...fresh.ends]);
  return { spec, built, queryFields, mutationFields, collection };
}

function firstVersion(next: (n: number) => number, n: number): Version {
  const spec: Spec = new Map();
  for (let i = 0; i < n; i++) {
    const refs: string[] = [];
    for (let j = next(4); j > 0; j--) refs.push(`t${next(n)}`);
    spec.set(`t${i}`, refs);
  }
  const names = [...spec.keys()];
  const queryFields = names.filter(() => next(3) > 0);
  if (queryFields.length === 0) queryFields.push('t0');
  const mutationFields = names.filter(() => next(4) === 0);
  return collectVersion(spec, build(spec, new Map(), new Map()), queryFields, mutationFields, undefined);
}

/** A random change of `v`: new types (referring to old and new ones), some types rebuilt, root fields added, dropped and moved. */
function changed(v: Version, next: (n: number) => number, version: number): Version {
  const spec: Spec = new Map(v.spec);
  const names = [...v.spec.keys()];
  const added: string[] = [];
  for (let i = next(4); i > 0; i--) {
    const name = `n${version}_${i}`;
    const refs: string[] = [];
    for (let j = next(3); j > 0; j--)
      refs.push(next(2) === 0 || added.length === 0 ? (names[next(names.length)] as string) : (added[next(added.length)] as string));
    spec.set(name, refs);
    added.push(name);
  }
  const rebuilt = withReferrers(spec, new Set(next(3) === 0 ? [names[next(names.length)] as string] : []));
  const keep = new Map([...v.built.objects].filter(([name]) => !rebuilt.has(name)));
  const built = build(spec, keep, v.built.reads, v.built.enums);
  const edit = (fields: readonly string[]): string[] => {
    const out = fields.filter(() => next(8) > 0);
    for (const a of added) if (next(2) === 0) out.splice(next(out.length + 1), 0, a);
    if (next(4) === 0 && out.length > 1) out.push(out.shift() as string);
    return out;
  };
  const queryFields = edit(v.queryFields);
  if (queryFields.length === 0) queryFields.push(names[0] as string);
  return collectVersion(spec, built, queryFields, edit(v.mutationFields), v.collection);
}

describe('type collection replayed across versions', () => {
  it('lists what a fresh collection lists, in its order, after random changes', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = random(seed);
      let v = firstVersion(next, 5 + next(40));
      for (let version = 1; version <= 6; version++) v = changed(v, next, version);
    }
  });

  it('reads no old type again when a change only adds types and root fields', () => {
    const next = random(7);
    const v1 = firstVersion(next, 60);
    const reads = new Map(v1.built.reads);
    const spec: Spec = new Map(v1.spec);
    spec.set('added', ['t3', 't7']);
    spec.set('added2', ['added', 't1']);
    const built = build(spec, v1.built.objects, v1.built.reads, v1.built.enums);
    const v2 = collectVersion(spec, built, [...v1.queryFields, 'added2'], [...v1.mutationFields, 'added'], v1.collection);
    for (const name of v1.spec.keys()) expect(v2.built.reads.get(name), name).toBe(reads.get(name));
    expect(v2.built.reads.get('added')).toBeGreaterThan(0);
  });
});

/** A recursive collection with a Set, as collect-types.ts walked before Note [Walk marks]: the types and each one's walk end. */
function recursiveCollection(roots: ReadonlyArray<GraphQLObjectType | undefined>): { types: GraphQLNamedType[]; ends: number[] } {
  const seen = new Set<GraphQLNamedType>();
  const types: GraphQLNamedType[] = [];
  const ends: number[] = [];
  const refs = (t: GraphQLNamedType): GraphQLNamedType[] => {
    const out: GraphQLNamedType[] = [];
    const add = (u: GraphQLType): void => {
      const n = getNamedType(u);
      if (!seen.has(n)) out.push(n);
    };
    if (isObjectType(t)) {
      for (const i of t.getInterfaces()) add(i);
      for (const f of Object.values(t.getFields())) {
        add(f.type);
        for (const a of f.args) add(a.type);
      }
    } else if (isInputObjectType(t)) {
      for (const f of Object.values(t.getFields())) add(f.type);
    }
    return out;
  };
  const enter = (start: GraphQLType): void => {
    const t = getNamedType(start);
    if (seen.has(t)) return;
    seen.add(t);
    const at = types.length;
    types.push(t);
    ends.push(-1);
    for (const r of refs(t)) enter(r);
    ends[at] = types.length;
  };
  for (const r of roots) if (r !== undefined) enter(r);
  for (const d of specifiedDirectives) for (const a of d.args) enter(a.type);
  enter(__Schema);
  return { types, ends };
}

/** A chain of `n` object types, each leading to the next, to a frozen enum shared by all and to an input of its own. */
function chain(n: number, frozen: GraphQLEnumType): GraphQLObjectType {
  const objects: GraphQLObjectType[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const next = objects[0];
    const input = new GraphQLInputObjectType({ name: `c${i}_input`, fields: { col: { type: frozen }, id: { type: GraphQLInt } } });
    objects.unshift(
      new GraphQLObjectType({
        name: `c${i}`,
        fields: {
          id: { type: GraphQLInt, args: { where: { type: input } } },
          ...(next === undefined ? {} : { next: { type: next, args: { col: { type: frozen } } } }),
        },
      }),
    );
  }
  return new GraphQLObjectType({ name: `chain_root_${n}`, fields: { first: { type: objects[0] as GraphQLObjectType } } });
}

describe('collecting walk marks (Note [Walk marks] in collect-types.ts)', () => {
  it('collects as a recursive walk with a Set does: deep chains, a frozen type, sizes that grow and shrink', () => {
    const frozen = Object.freeze(new GraphQLEnumType({ name: 'frozen_column', values: { a: { value: 'a' } } })) as GraphQLEnumType;
    // Large after small after large: the walks' first sizes come from the last walk, too small and then too large.
    for (const n of [3000, 20, 4000, 5, 4000]) {
      const query = chain(n, frozen);
      const expected = recursiveCollection([query]);
      const got = collectTypes([query]);
      expect(got.types.length).toBe(expected.types.length);
      got.types.forEach((t, i) => expect(t, `type ${i}`).toBe(expected.types[i]));
      expect([...got.ends]).toEqual(expected.ends);
      expect(got.types).toEqual(plain(query, undefined));
      expect(got.types.filter((t) => t === frozen)).toHaveLength(1);
    }
  });
});
