/**
 * A schema's named types listed without recursion.
 *
 * Note [Flat type collection]
 * The GraphQLSchema constructor finds the types of a schema by a recursive
 * walk from the roots, one stack frame per type along a chain of
 * references. The metadata-at-scale database (test/bench/lib/scale.ts)
 * chains tables by foreign keys, so `t00001` reaches `t05000` through
 * relationship fields, and at 5,000 tables the walk overflowed the stack
 * ("Maximum call stack size exceeded" building any role's schema). So the
 * builders walk the types first with an explicit stack, in exactly the
 * order graphql-js would (the order of the type map, hence of printSchema
 * and introspection), and pass them as `types`: the constructor then finds
 * every referenced type already collected and recurses one level only.
 */
import {
  GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  specifiedDirectives,
  validateSchema,
  __Schema,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLError,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLType,
} from 'graphql';
import { isGenerated, SEEN_MARK, VALID_MARK } from './lean-types.ts';

/**
 * Note [Which types are validated]
 * graphql-js's validateSchema reads every field, argument and value of a
 * schema: 330 ms for the admin schema of 2,000 tables (84,000 types) and
 * as much again for a role shape whose table types are its own, on a first
 * build (replace_metadata, a start), where no type is known valid yet
 * (Note [Validating only new types]). Most of what it checks holds by
 * construction for the types the engine generates from the catalog
 * (made by lean-types.ts's generated* constructors: a table's object,
 * aggregate, bool_exp, order_by, mutation, stream and column enum types,
 * comparison expressions, enum-table enums, `<fn>_args`, Relay
 * connections, and root types whose fields all come from tables and
 * functions: `generated` contributors of root-fields.ts):
 * - names are GraphQL names and no enum value is `true`, `false` or
 *   `null` (graphql-js's constructors assert both), type names are unique
 *   ({@link schemaOf} refuses duplicates with graphql-js's message);
 * - field and argument types are output and input types (the builders'
 *   types say so), nothing required is deprecated (nothing generated is
 *   deprecated);
 * - no input object reaches itself through non-null fields only: the
 *   generated non-null input fields (`data` of `<t>_obj_rel_insert_input`,
 *   `where` of `<t>_updates`, `initial_value` of a stream cursor,
 *   `constraint`, `arguments`, `predicate`, key and function argument
 *   columns) lead to enums, scalars or types whose fields are nullable.
 * The rest depends on names and shapes from outside (a `__`
 * type-name or root-field prefix of a source's customization, a remote relationship
 * named `__x`, a table without columns) and is checked by {@link
 * referencesOf} as the collecting walk reads each generated type anyway: no
 * `__` name (type, field, argument, value), at least one field or value, no
 * interface, not oneOf. A generated type that passes is known valid from then on; every
 * other type is validated by graphql-js as before (root types with
 * action or remote fields or under a namespace, scalars, actions' and
 * remote schemas' types, namespace types, the types
 * of a renamed schema, a generated type that failed a check): through
 * {@link validateThrough}, and a schema that fails there, or holds a new
 * interface or union, is validated whole, so its errors are graphql-js's
 * own. What is trusted by construction is checked by a test instead:
 * test/unit/graphql/generated-types-valid.test.ts runs graphql-js's full
 * validateSchema on schemas of every generated type family.
 * What settled it (`NODE_ENV=production node test/bench/track-profile.ts
 * 2000 10 0`, which builds every schema once and asks each one query,
 * beside a worktree of fdc122a, alternated, 3 rounds, load 9-12; CPU ms):
 * every schema plus its first request 2,837-3,228 → 2,287-2,547; the
 * admin's first request 402-466 → 5-6, the second role shape's 86-101 → 2.
 * The marks are properties (and so are the `T!` wrappers of lean-types.ts
 * and root-types.ts' made fields): as WeakSets and WeakMaps keyed by a
 * first build's 84,000 young types they made every young collection walk
 * them, and the admin's build took ~150 ms longer each (a build of the
 * synthetic source of test/support/synthetic-source.ts at 2,000 tables).
 */
/**
 * Set on the types known valid: of a schema that passed, or generated and
 * checked (Note [Which types are validated]). A property rather than a
 * WeakSet: a WeakSet of a first build's 84,000 new types made every young
 * collection walk it (the admin schema of 2,000 tables took 150 ms longer).
 */
type Marked = { [VALID_MARK]?: boolean };

function isValid(type: GraphQLNamedType): boolean {
  return (type as Marked)[VALID_MARK] === true;
}

function markValid(type: GraphQLNamedType): void {
  (type as Marked)[VALID_MARK] = true;
}

/**
 * Appends to `into` from `at` the named types `type` refers to that `seen`
 * does not hold, in graphql-js's collection order (one seen now is seen
 * when the walk comes to it: leaving it out keeps the order, and most
 * references are to scalars and shared types); returns the new end. A
 * generated type (lean-types.ts) that passes the checks of Note [Which
 * types are validated] on the way is recorded as valid. Not remembered per
 * type: a WeakMap of these lists (tried for types shared across catalog
 * versions) kept 157 MiB of heap for every schema of 2,000 tables × 10
 * roles instead of 133 (`node --expose-gc test/bench/schema-memory.ts 2000
 * 10`) to save ~25% of a schema's build after a change
 * (test/bench/track-profile.ts).
 */
function referencesOf(type: GraphQLNamedType, seen: Walk, into: GraphQLNamedType[], at: number): number {
  let n = at;
  // Whether the type is generated and its names and shape hold so far.
  let trusted = isGenerated(type) && !reserved(type.name);
  if (isUnionType(type)) {
    for (const t of type.getTypes()) if (!seen.has(t)) into[n++] = t;
  } else if (isObjectType(type) || isInterfaceType(type)) {
    for (const t of type.getInterfaces()) if (!seen.has(t)) into[n++] = t;
    const fields = type.getFields();
    let empty = true;
    for (const name in fields) {
      const field = fields[name] as GraphQLField<unknown, unknown>;
      empty = false;
      if (trusted && reserved(name)) trusted = false;
      const t = getNamedType(field.type);
      if (!seen.has(t)) into[n++] = t;
      for (const arg of field.args) {
        if (trusted && reserved(arg.name)) trusted = false;
        const a = getNamedType(arg.type);
        if (!seen.has(a)) into[n++] = a;
      }
    }
    if (trusted && (empty || !isObjectType(type) || type.getInterfaces().length > 0)) trusted = false;
  } else if (isInputObjectType(type)) {
    const fields = type.getFields();
    let empty = true;
    for (const name in fields) {
      empty = false;
      if (trusted && reserved(name)) trusted = false;
      const t = getNamedType((fields[name] as GraphQLInputField).type);
      if (!seen.has(t)) into[n++] = t;
    }
    if (trusted && (empty || type.isOneOf)) trusted = false;
  } else if (trusted && isEnumType(type)) {
    const values = type.getValues();
    if (values.length === 0) trusted = false;
    for (const v of values) if (reserved(v.name)) trusted = false;
  } else {
    trusted = false;
  }
  if (trusted) markValid(type);
  return n;
}

/**
 * Note [Walk marks]
 * A collecting walk of a first build's admin schema at 2,000 tables meets
 * 84,000 types. As a Set of them, a list of references per type on the
 * walk's stack and arrays grown one push at a time, it left what each
 * growth replaced (large objects past 128 KiB, which V8 allocates in the
 * old generation) and every list that outlived a young collection (the
 * stack runs thousands of types deep along the scale bench's chains) in
 * the old generation until its next full collection: garbage that the
 * engine's RSS the moment every role answered still held. So a walk
 * marks the types it saw with its number ({@link SEEN_MARK}, a field the
 * lean types declare), keeps the references of the whole stack in one
 * array that is overwritten rather than shrunk, and sizes its results from
 * the previous collection (or the last walk) when it has one.
 * Measured in Note [What the builds promote] in schema-cache.ts.
 */
type SeenMarked = { [SEEN_MARK]?: number };

/** The number of the last collecting walk begun. */
let walks = 0;
/** Whether a walk is running (a walk inside another, none today, marks in a Set of its own). */
let walking = false;
/** The types the last walk collected: the size the next one without a previous collection starts from. */
let lastCount = 0;

/** The types one collecting walk saw. */
class Walk {
  readonly #id: number;
  /** For a walk inside another, and types that cannot take the mark (frozen by their maker). */
  readonly #set: Set<GraphQLNamedType> | null;
  #frozen: Set<GraphQLNamedType> | null = null;

  constructor(id: number, nested: boolean) {
    this.#id = id;
    this.#set = nested ? new Set() : null;
  }

  has(t: GraphQLNamedType): boolean {
    if (this.#set !== null) return this.#set.has(t);
    return (t as SeenMarked)[SEEN_MARK] === this.#id || (this.#frozen !== null && this.#frozen.has(t));
  }

  add(t: GraphQLNamedType): void {
    if (this.#set !== null) this.#set.add(t);
    else if (Object.isExtensible(t)) (t as SeenMarked)[SEEN_MARK] = this.#id;
    else (this.#frozen ??= new Set()).add(t);
  }
}

/** An array of `n` slots, packed (`new Array(n)` beyond 100,000 would make a dictionary of it). */
function slots<T>(n: number): T[] {
  return Array.from({ length: n }) as T[];
}

/** A name graphql-js's validateSchema refuses outside introspection (`__`-prefixed). */
function reserved(name: string): boolean {
  return name.charCodeAt(0) === 95 && name.charCodeAt(1) === 95;
}

/**
 * Note [Collection replayed across versions]
 * After a metadata change most of a role's types are the previous version's
 * very objects (Note [Types across catalog versions] in schema-cache.ts),
 * yet collecting the new schema's types walked all of them again: every
 * field and argument of every type, half of a role schema's build after
 * tracking one table at 2,000 tables. A type object never changes once its
 * fields are made, so what a depth-first walk reaches from an old type is
 * old types only, in the same order, as long as the walk finds the same of
 * them already seen. So a collection keeps, besides its types in order,
 * where each type's walk ended (`ends`: the types first reached under
 * types[i] are types[i .. ends[i]]), and the next version's collection
 * replays it: it keeps a cursor k into the previous list such that the old
 * types collected so far are exactly the previous list's first k (the
 * previous roots, reachable from no type, skipped); meeting previous[k]
 * again, it copies previous[k .. ends[k]] without reading a field, since
 * the walk from there would find the same types seen and unseen. New types
 * are walked as before and leave the cursor where it is (no old type leads
 * to them). An old type met anywhere else (a table untracked or changed
 * before it, a new table reaching an old type first) ends the replay: the
 * rest is walked as before, so the order is always graphql-js's
 * (test/unit/graphql/collect-types.test.ts compares replays of changed
 * schemas with fresh collections; schema-across-versions.test.ts prints
 * every role's schema after each change against a fresh build).
 * Any earlier collection may be replayed, since only type identity counts:
 * SchemaCache gives the role's schema of the previous catalog version, or
 * else the first schema built over the same table types in this version (a
 * role reading every table as the admin does replays the admin's). The
 * previous list is kept as an array: listing a type map of 84,000 names
 * (Object.values) took 40 ms, more than the replay itself.
 * What settled it (`node --expose-gc test/bench/track-profile.ts 2000 10 3`
 * beside a worktree of the commit before, CPU ms per table tracked): the
 * admin schema 510-550 → 270-340, every role 530-640 → 280-360, with Note
 * [Root fields across versions] in root-types.ts; collecting the admin's
 * 84,000 types 170-230 ms walked, 50-90 replayed
 * (test/bench/track-profile.ts, a micro run in the same process).
 */

/** A schema's types in collection order, and where each one's walk ended: what the next version's collection replays. */
export interface TypeCollection {
  /** The schema made of them (before any renaming). */
  readonly schema: GraphQLSchema;
  /** Its types in collection order (its type map's order; kept, as listing a type map of 80,000 names took 40 ms). */
  readonly types: readonly GraphQLNamedType[];
  /** `ends[i]`: one past the last type first reached under the i-th (its walk is types[i .. ends[i]]). */
  readonly ends: Int32Array;
}

/**
 * Every named type reachable from `roots` (then the specified directives'
 * argument types and the introspection types), depth first, as graphql-js's
 * collectReferencedTypes orders them, with where each type's walk ended;
 * replaying `previous` where it may: Note [Collection replayed across versions].
 */
export function collectTypes(
  roots: ReadonlyArray<GraphQLObjectType | undefined>,
  previous?: TypeCollection,
): { readonly types: GraphQLNamedType[]; readonly ends: Int32Array; readonly walked: readonly GraphQLNamedType[] } {
  const nested = walking;
  walking = true;
  walks += 1;
  const seen = new Walk(walks, nested);
  const before = previous?.types ?? [];
  const beforeEnds = previous?.ends ?? new Int32Array(0);
  // Sized for the previous collection (a change adds or drops a few types) and trimmed at the end: Note [Walk marks].
  let capacity = Math.max(before.length, lastCount, 64);
  let out = slots<GraphQLNamedType>(capacity);
  let ends = new Int32Array(capacity);
  let count = 0;
  // The types walked, not replayed (all a schema can have that its previous version did not); without a previous collection, `out`.
  const walked: GraphQLNamedType[] | null = previous === undefined ? null : [];
  // The references of every type on the stack, each frame's after its parent's, overwritten rather than shrunk.
  const pending: GraphQLNamedType[] = [];
  let pendingEnd = 0;
  // Frames: where the type's references start in `pending`, the next one to visit, the type's index in `out`.
  const starts: number[] = [];
  const cursors: number[] = [];
  const owners: number[] = [];
  const beforeMap = previous?.schema.getTypeMap();
  const beforeRoots = new Set<GraphQLNamedType | null | undefined>(
    previous === undefined ? [] : [previous.schema.getQueryType(), previous.schema.getMutationType(), previous.schema.getSubscriptionType()],
  );
  const reserve = (n: number): void => {
    if (count + n <= capacity) return;
    capacity = Math.max(capacity * 2, count + n);
    const grown = slots<GraphQLNamedType>(capacity);
    for (let i = 0; i < count; i++) grown[i] = out[i] as GraphQLNamedType;
    out = grown;
    const grownEnds = new Int32Array(capacity);
    grownEnds.set(ends.subarray(0, count));
    ends = grownEnds;
  };
  let k = 0;
  let replaying = previous !== undefined && before.length === beforeEnds.length;
  const enter = (t: GraphQLNamedType): void => {
    if (replaying) {
      while (k < before.length && beforeRoots.has(before[k])) k += 1;
      if (before[k] === t) {
        const end = beforeEnds[k] as number;
        const shift = count - k;
        reserve(end - k);
        for (let i = k; i < end; i++) {
          const u = before[i] as GraphQLNamedType;
          seen.add(u);
          out[count] = u;
          ends[count] = (beforeEnds[i] as number) + shift;
          count += 1;
        }
        k = end;
        return;
      }
      if (beforeMap?.[t.name] === t) replaying = false;
    }
    seen.add(t);
    walked?.push(t);
    reserve(1);
    owners.push(count);
    out[count] = t;
    ends[count] = -1;
    count += 1;
    starts.push(pendingEnd);
    cursors.push(pendingEnd);
    pendingEnd = referencesOf(t, seen, pending, pendingEnd);
  };
  const visit = (start: GraphQLType): void => {
    const first = getNamedType(start);
    if (seen.has(first)) return;
    enter(first);
    for (let top = cursors.length - 1; top >= 0; top = cursors.length - 1) {
      const i = cursors[top] as number;
      // The top frame's references run to pendingEnd: its children's were dropped as each ended.
      if (i === pendingEnd) {
        pendingEnd = starts.pop() as number;
        cursors.pop();
        ends[owners.pop() as number] = count;
        continue;
      }
      cursors[top] = i + 1;
      const named = pending[i] as GraphQLNamedType;
      if (!seen.has(named)) enter(named);
    }
  };
  try {
    for (const root of roots) if (root !== undefined) visit(root);
    for (const directive of specifiedDirectives) for (const arg of directive.args) visit(arg.type);
    visit(__Schema);
  } finally {
    if (!nested) walking = false;
  }
  out.length = count;
  lastCount = count;
  // A view keeps the slack of a close guess; a copy, that of a far one.
  const kept = capacity - count <= capacity / 8 ? ends.subarray(0, count) : ends.slice(0, count);
  return { types: out, ends: kept, walked: walked ?? out };
}

/** The fields graphql-js 16's GraphQLSchema constructor sets from its roots and types (see Note [Schema without a second walk]). */
interface SchemaInternals {
  _queryType: GraphQLObjectType | undefined;
  _mutationType: GraphQLObjectType | undefined;
  _subscriptionType: GraphQLObjectType | undefined;
  _typeMap: Record<string, GraphQLNamedType>;
  _implementationsMap: Record<string, { objects: GraphQLObjectType[]; interfaces: GraphQLInterfaceType[] }>;
}

/**
 * Note [Schema without a second walk]
 * Given `types`, the GraphQLSchema constructor still reads every field and
 * argument of every type once more (collectReferencedTypes per type), which
 * was a third of a role schema's build once table types were reused across
 * catalog versions (Note [Types across catalog versions] in
 * schema-cache.ts): the types are already collected, in the very order the
 * constructor would keep. So {@link schemaOf} constructs a schema without
 * roots (its introspection types only) and sets what the constructor would
 * set from the roots and types: the roots, the type map in collection
 * order (refusing two types of one name with graphql-js's message) and the
 * implementations of each interface. graphql is pinned (package-lock.json);
 * test/unit/graphql/collect-types.test.ts checks the result against the
 * constructor's.
 */

/**
 * Note [Validating only new types]
 * graphql-js validates a schema (validateSchema) on its first request and
 * keeps the result on it. Most of a schema's types are often another
 * schema's very objects: after a metadata change the previous version's
 * (Note [Types across catalog versions] in schema-cache.ts), and on a first
 * build the admin's (Note [Shared table types] there: at 2,000 tables × 10
 * roles, 62,005 of one role shape's 62,007 types are the admin's). Yet each
 * schema's first request validated all of them again: a fifth of the
 * engine's CPU from tracking a table to every role answered, and 254 of the
 * 730 ms that validating a first build's three schemas took. The rules
 * validateSchema applies to a type read that type and what its fields lead
 * to, not the rest of the schema (names, field and argument kinds, enum
 * values, input cycles, which a new cycle closes through a new type), except
 * interfaces and unions, which are left to graphql-js here. So once a schema
 * has passed (the request path reports it: {@link noteValidSchema}), its
 * types are known valid, and a schema whose types not yet known valid are
 * no interfaces, unions or implementations is validated through a schema of
 * those types only ({@link validateSchemaOnce}, the request path's step
 * before graphql-js validates a document) and, when that passes, marked as
 * validated. Otherwise (a failure, an interface) graphql-js validates it in
 * full, reporting its own errors. At build, a schema whose types are mostly
 * known valid is validated so already (a metadata call checks stored
 * queries against the admin schema it builds); others wait for their first
 * request: validating whole schemas at build doubled the build of roles
 * that may never send a request (Note [A schema build never escapes] in
 * schema-cache.ts).
 * What settled it (`NODE_ENV=production node --max-semi-space-size=16
 * --expose-gc test/bench/track-profile.ts 2000 10 3`, which asks every
 * schema one query, beside a worktree of 085f259, alternated, load 12-16;
 * CPU): a first build's first request of every role 807-957 → 493-617 ms;
 * each track's first requests (admin + every role) 90-112 → 3-10 ms.
 */
const validSchemas = new WeakSet<GraphQLSchema>();
/** Each schema's types as {@link schemaOf} collected them: listing a type map of 84,000 names took 40 ms. */
const collected = new WeakMap<GraphQLSchema, readonly GraphQLNamedType[]>();

function typesOf(schema: GraphQLSchema): readonly GraphQLNamedType[] {
  return collected.get(schema) ?? Object.values(schema.getTypeMap());
}

/** Records that `schema` passed graphql-js's validateSchema: Note [Validating only new types]. */
export function noteValidSchema(schema: GraphQLSchema): void {
  if (validSchemas.has(schema)) return;
  validSchemas.add(schema);
  for (const t of typesOf(schema)) markValid(t);
}

/** Validates `schema` through `fresh`, its types not known valid; whether it passed (then it is marked validated). */
function validateThrough(schema: GraphQLSchema, fresh: readonly GraphQLNamedType[]): boolean {
  for (const t of fresh) if (isInterfaceType(t) || isUnionType(t) || (isObjectType(t) && t.getInterfaces().length > 0)) return false;
  // The schema's own directives, validated with it (the engine's schemas have only the specified ones).
  const partial = new GraphQLSchema({ directives: schema.getDirectives() });
  const internals = partial as unknown as SchemaInternals;
  const own = schema as unknown as SchemaInternals;
  internals._queryType = own._queryType;
  internals._mutationType = own._mutationType;
  internals._subscriptionType = own._subscriptionType;
  const typeMap = Object.create(null) as Record<string, GraphQLNamedType>;
  Object.assign(typeMap, internals._typeMap);
  for (const t of fresh) typeMap[t.name] = t;
  internals._typeMap = typeMap;
  if (validateSchema(partial).length > 0) return false;
  // What `assumeValid` sets: validateSchema (and every request's validate) then finds the schema validated.
  (schema as unknown as { __validationErrors: readonly GraphQLError[] }).__validationErrors = [];
  validSchemas.add(schema);
  for (const t of fresh) markValid(t);
  return true;
}

/**
 * At build: validates `schema` (made of `types`) through its new types when
 * most are known valid. `candidates`, when given, hold every type of
 * `types` that may not be known valid: the walked ones of a collection that
 * replayed a validated schema's (looking all 84,000 up took longer than
 * validating a track's new types).
 */
function validateNewTypes(schema: GraphQLSchema, types: readonly GraphQLNamedType[], candidates: readonly GraphQLNamedType[] = types): void {
  const fresh = candidates.filter((t) => !isValid(t));
  if (fresh.length * 2 > types.length) return;
  validateThrough(schema, fresh);
}

/**
 * Before a request's document is validated against `schema`: validates the
 * schema through its types not known valid, unless graphql-js has validated
 * it already; a schema that fails is left to graphql-js, whose errors the
 * request then gets (Note [Validating only new types]).
 */
export function validateSchemaOnce(schema: GraphQLSchema): void {
  if (validSchemas.has(schema) || (schema as unknown as { __validationErrors?: unknown }).__validationErrors !== undefined) return;
  const types = typesOf(schema);
  const fresh = types.filter((t) => !isValid(t));
  // None known valid (a first build's first schema): graphql-js validates it whole, without a copy of its type map.
  if (fresh.length === types.length) {
    if (validateSchema(schema).length === 0) noteValidSchema(schema);
    return;
  }
  validateThrough(schema, fresh);
}

/**
 * The GraphQLSchema of these roots, with its types collected by {@link
 * collectTypes} (replaying `previous`, the collection of the role's schema
 * in the previous catalog version): Note [Schema without a second walk].
 */
export function schemaOf(
  query: GraphQLObjectType,
  mutation: GraphQLObjectType | undefined,
  subscription?: GraphQLObjectType,
  previous?: TypeCollection,
): TypeCollection {
  const { types, ends, walked } = collectTypes([query, mutation, subscription], previous);
  const schema = new GraphQLSchema({});
  const typeMap: Record<string, GraphQLNamedType> = Object.create(null) as Record<string, GraphQLNamedType>;
  const implementations: SchemaInternals['_implementationsMap'] = Object.create(null) as SchemaInternals['_implementationsMap'];
  const implementationsOf = (iface: GraphQLInterfaceType): { objects: GraphQLObjectType[]; interfaces: GraphQLInterfaceType[] } =>
    (implementations[iface.name] ??= { objects: [], interfaces: [] });
  for (const type of types) {
    if (typeMap[type.name] !== undefined) throw new Error(`Schema must contain uniquely named types but contains multiple types named "${type.name}".`);
    typeMap[type.name] = type;
    if (isInterfaceType(type)) for (const iface of type.getInterfaces()) implementationsOf(iface).interfaces.push(type);
    else if (isObjectType(type)) for (const iface of type.getInterfaces()) implementationsOf(iface).objects.push(type);
  }
  const internals = schema as unknown as SchemaInternals;
  internals._queryType = query;
  internals._mutationType = mutation;
  internals._subscriptionType = subscription;
  internals._typeMap = typeMap;
  internals._implementationsMap = implementations;
  collected.set(schema, types);
  // Replayed types are the previous schema's: known valid once it is (Note [Validating only new types]).
  validateNewTypes(schema, types, previous !== undefined && validSchemas.has(previous.schema) ? walked : types);
  return { schema, types, ends };
}
