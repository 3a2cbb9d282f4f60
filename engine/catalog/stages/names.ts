/**
 * Stage "names": GraphQL names must be unique across the whole schema, so two
 * tracked tables (of any sources) may not share a type name (their own or a
 * derived one like `<t>_bool_exp`) or a root field; a function's `<fn>_args`
 * is claimed the same way (stages/functions.ts), shared with the computed
 * fields over that function (stages/computed-fields.ts).
 * Tables are claimed in document order; a later table that clashes is
 * inconsistent, which is how tracking a clashing table is refused.
 */
import type { ScalarInfo } from '../../backends/backend.ts';
import { derivedTableTypeNames, RESERVED_TYPE_NAMES, scalarName } from '../graphql-names.ts';
import { sameData } from '../intern.ts';
import type { SourceCustomizationInfo } from '../types.ts';
import { customizeTypeName } from './customization.ts';
import type { TableDraft } from './tables.ts';

/**
 * The owners of one kind of name: the claims made here over those of a
 * frozen base layer (Note [Layered name claims]). Claims are only ever added,
 * so a name's owner is that of the first layer that has it.
 */
class Claims {
  readonly own = new Map<string, string>();
  readonly #base: Claims | null;

  constructor(base: Claims | null) {
    this.#base = base;
  }

  get(name: string): string | undefined {
    const o = this.own.get(name);
    return o !== undefined || this.#base === null ? o : this.#base.get(name);
  }

  set(name: string, owner: string): void {
    this.own.set(name, owner);
  }
}

/** Registries a lookup may walk before a new layer copies them into one. */
const MAX_LAYERS = 8;

/** Claims names table by table; returns why a table clashes, or null when its names are free. */
export class NameRegistry {
  /**
   * Owners by name, one map per kind of name (`type name`, `root field` per
   * namespace...): a table claims ~40 names, and building a `kind:namespace:name`
   * key per name and lookup was most of the catalog's "tables" stage at 2,000 tables.
   */
  readonly #owners = new Map<string, Claims>();
  /** Type names claimed with {@link claimShared}: their owner may claim them again. */
  readonly #shared = new Set<string>();
  /** The frozen registry this one adds to (Note [Layered name claims]), and how many are below it. */
  readonly #base: NameRegistry | null;
  readonly #depth: number;
  #frozen = false;

  constructor(base: NameRegistry | null = null) {
    if (base !== null && !base.#frozen) throw new Error('a registry is layered only over a frozen one');
    if (base !== null && base.#depth >= MAX_LAYERS) {
      // Too many layers to walk on every lookup: this one starts with a copy of them all.
      for (const k of base.#kinds()) {
        const c = new Claims(null);
        base.#copyInto(k, c);
        this.#owners.set(k, c);
      }
      base.#copySharedInto(this.#shared);
      this.#base = null;
    } else this.#base = base;
    this.#depth = this.#base === null ? 0 : this.#base.#depth + 1;
  }

  /** Freezes this registry and answers a new one that adds to it: what was claimed so far stays as it is. */
  layer(): NameRegistry {
    this.#frozen = true;
    return new NameRegistry(this);
  }

  #kinds(): Set<string> {
    const out = this.#base === null ? new Set<string>() : this.#base.#kinds();
    for (const k of this.#owners.keys()) out.add(k);
    return out;
  }

  #copyInto(k: string, into: Claims): void {
    if (this.#base !== null) this.#base.#copyInto(k, into);
    for (const [n, o] of this.#owners.get(k)?.own ?? []) into.set(n, o);
  }

  #copySharedInto(into: Set<string>): void {
    if (this.#base !== null) this.#base.#copySharedInto(into);
    for (const n of this.#shared) into.add(n);
  }

  #isShared(name: string): boolean {
    return this.#shared.has(name) || (this.#base !== null && this.#base.#isShared(name));
  }

  /** The owners of names of kind `what`; root fields under different namespaces do not meet, type names are global. */
  #of(what: string, namespace: string): Claims {
    if (this.#frozen) throw new Error('claim in a frozen name registry');
    const k = what === 'root field' ? `${what}:${namespace}` : what;
    let m = this.#owners.get(k);
    if (m === undefined) {
      m = new Claims(this.#base === null ? null : this.#base.#claimsOf(k));
      this.#owners.set(k, m);
    }
    return m;
  }

  /** The claims of kind key `k` in this registry or the ones below it. */
  #claimsOf(k: string): Claims | null {
    const own = this.#owners.get(k);
    if (own !== undefined) return own;
    return this.#base === null ? null : this.#base.#claimsOf(k);
  }

  /**
   * Claims the type names no table may take: GraphQL's scalars, the root
   * types, the shared enums, and the scalars of `dbTypes` (the column types of
   * every tracked table, claimed up front so that a table named `uuid` is the
   * one refused, not a later table with a uuid column). Customized sources
   * prefix their table types, so a clash there is caught by the schema build
   * (graphql/schema/schema-cache.ts) instead.
   */
  reserve(dbTypes: ReadonlyMap<string, ScalarInfo>): void {
    const types = this.#of('type name', '');
    for (const n of RESERVED_TYPE_NAMES) types.set(n, 'the GraphQL schema itself');
    for (const [t, scalar] of dbTypes) types.set(scalarName(scalar), `the scalar of database type "${t}"`);
  }

  /**
   * Claims a type name its owner may claim more than once (a function's
   * `<fn>_args`, used by every computed field over it and by the tracked
   * function), or returns the clash with another owner.
   */
  claimShared(owner: string, name: string): string | null {
    const types = this.#of('type name', '');
    const other = types.get(name);
    if (other !== undefined && !(other === owner && this.#isShared(name))) return `the type name "${name}" of ${owner} conflicts with the one of ${other}`;
    types.set(name, owner);
    this.#shared.add(name);
    return null;
  }

  /**
   * Claims every GraphQL name of `t` or returns the first clash without
   * claiming any. With a source customization, the type name carries its
   * type prefix/suffix and root fields are claimed within its namespace.
   * Same answer as {@link claimNames} over the table's names, from a plan
   * made once per draft (Note [Claim plans]).
   */
  claim(t: TableDraft, c?: SourceCustomizationInfo): string | null {
    return this.claimPlanned(claimPlan(t, c));
  }

  /** {@link claim} of a table's names as {@link claimPlan} lists them. */
  claimPlanned(plan: ClaimPlan): string | null {
    const types = this.#of('type name', '');
    const roots = this.#of('root field', plan.namespace);
    const { names, isRoot } = plan;
    for (let i = 0; i < names.length; i++) {
      if (i === plan.selfClashAt) return plan.selfClash;
      const n = names[i] as string;
      const root = isRoot[i] === 1;
      const other = (root ? roots : types).get(n);
      if (other !== undefined && !(other === plan.owner && !root && this.#isShared(n))) {
        return `the ${root ? 'root field' : 'type name'} "${n}" of ${plan.owner} conflicts with the one of ${other}`;
      }
    }
    if (plan.selfClashAt !== -1) return plan.selfClash;
    for (let i = 0; i < names.length; i++) (isRoot[i] === 1 ? roots : types).set(names[i] as string, plan.owner);
    return null;
  }

  /**
   * Claims `[name, what]` pairs (`what` is `type name` or `root field`) for
   * `owner`, or returns the first clash without claiming any. A name may
   * serve as a type and a root field at once (`<t>_aggregate`), and `base`
   * may be two root fields of the same owner.
   */
  claimNames(owner: string, names: ReadonlyArray<readonly [string, string]>, base: string, namespace = ''): string | null {
    const own = new Map<Claims, Set<string>>();
    const tables: Claims[] = [];
    for (const [n, what] of names) {
      const owners = this.#of(what, namespace);
      tables.push(owners);
      let mine = own.get(owners);
      if (mine === undefined) {
        mine = new Set();
        own.set(owners, mine);
      }
      if (mine.has(n) && (what !== 'root field' || n !== base)) return `the ${what} "${n}" is used twice by ${owner}`;
      mine.add(n);
      const other = owners.get(n);
      // Only type names are claimed shared.
      if (other !== undefined && !(other === owner && what === 'type name' && this.#isShared(n))) {
        return `the ${what} "${n}" of ${owner} conflicts with the one of ${other}`;
      }
    }
    names.forEach(([n], i) => tables[i]?.set(n, owner));
    return null;
  }
}

/*
 * Note [Claim plans]
 * Every catalog build claims every table's ~40 names again (a later build
 * may see a clash an earlier one did not), and making the names (derived
 * type names, customized names, the owner's text) and checking them against
 * each other was most of a pg_track_table call at 2,000 tables once the
 * other stages reused their results (Note [Catalog memo] in catalog/memo.ts):
 * the tables stage took 88–330 ms of a 90–215 ms call at load ~10 (`CAT_T`
 * timing of `node test/bench/track-profile.ts 2000 10 6`, since removed).
 * What depends on the draft alone is made once per draft: the names in
 * claim order, which are root fields, and where the table first clashes with
 * itself; a build only looks each name up in the registry.
 */

/*
 * Note [Layered name claims]
 * Even with plans, claiming ~40 names for each of 2,000 tables filled maps of
 * 80,000 names on every build, the largest cost left in a pg_track_table
 * once the stages reused their results (`node --cpu-prof
 * test/bench/catalog-build.ts`). Claims are a function of the sequence of
 * plans (and the reserved names), so the tables stage keeps, per build, that
 * sequence, each claim's answer, and the registry right after the tables,
 * frozen. The next build compares its plans in order with the kept ones (as
 * names: a table whose draft changed for a permission claims the same names):
 * while they agree it takes the kept answers without touching a registry;
 * when the kept sequence is a whole prefix of the new one (tables tracked at
 * the end: the usual case) it claims the rest in a new layer over the kept
 * registry; anywhere else it claims everything again in a new registry. A
 * layer only adds (claims never leave a registry), so a lookup is "the first
 * layer that has the name"; past MAX_LAYERS layers a new one starts from a
 * copy of them all. The stages after the tables (computed fields, functions,
 * actions, remote schemas) claim in a layer of their own, so what the next
 * build takes over holds the tables' claims only.
 * Measured with `node test/bench/catalog-build.ts 2000 10 8` (CPU ms per build,
 * median, load ~12): see the commit that added this note.
 */

/** The names of one draft as {@link NameRegistry.claim} checks them. */
export interface ClaimPlan {
  readonly customization: SourceCustomizationInfo | undefined;
  readonly owner: string;
  readonly namespace: string;
  readonly names: readonly string[];
  /** 1 where `names[i]` is a root field, 0 where it is a type name. */
  readonly isRoot: Uint8Array;
  /** The index of the first name the table itself already used (-1: none), and the message for it. */
  readonly selfClashAt: number;
  readonly selfClash: string | null;
}

const plans = new WeakMap<TableDraft, ClaimPlan>();

/** The names `t` claims (made once per draft). */
export function claimPlan(t: TableDraft, c: SourceCustomizationInfo | undefined): ClaimPlan {
  const known = plans.get(t);
  if (known !== undefined && (known.customization === c || sameData(known.customization, c))) return known;
  const owner = `table "${t.naming.format(t.entry.table)}" in source "${t.source}"`;
  const names: string[] = [customizeTypeName(c, t.gqlName)];
  // The derived types (`<t>_bool_exp`, `<t>_aggregate`, `<t>_insert_input`, ...) are global too.
  for (const n of derivedTableTypeNames(t.gqlName, t.enumValues !== null)) names.push(customizeTypeName(c, n));
  const typeCount = names.length;
  for (const n of Object.values(t.rootFields)) names.push(n);
  const isRoot = new Uint8Array(names.length).fill(1, typeCount);
  let selfClashAt = -1;
  let selfClash: string | null = null;
  const seenTypes = new Set<string>();
  const seenRoots = new Set<string>();
  for (let i = 0; i < names.length && selfClashAt === -1; i++) {
    const n = names[i] as string;
    const root = i >= typeCount;
    const seen = root ? seenRoots : seenTypes;
    // `base` (the table's name) may be two root fields of the same owner.
    if (seen.has(n) && (!root || n !== t.gqlName)) {
      selfClashAt = i;
      selfClash = `the ${root ? 'root field' : 'type name'} "${n}" is used twice by ${owner}`;
    }
    seen.add(n);
  }
  const plan: ClaimPlan = { customization: c, owner, namespace: c?.namespace ?? '', names, isRoot, selfClashAt, selfClash };
  plans.set(t, plan);
  return plan;
}

/** Whether two plans claim the same names for the same owner (so claiming either answers the same). */
export function samePlan(a: ClaimPlan, b: ClaimPlan): boolean {
  if (a === b) return true;
  if (a.owner !== b.owner || a.namespace !== b.namespace || a.selfClashAt !== b.selfClashAt || a.names.length !== b.names.length) return false;
  for (let i = 0; i < a.names.length; i++) if (a.names[i] !== b.names[i] || a.isRoot[i] !== b.isRoot[i]) return false;
  return true;
}
