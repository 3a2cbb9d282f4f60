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
import type { SourceCustomizationInfo } from '../types.ts';
import { customizeTypeName } from './customization.ts';
import type { TableDraft } from './tables.ts';

/** Claims names table by table; returns why a table clashes, or null when its names are free. */
export class NameRegistry {
  /**
   * Owners by name, one map per kind of name (`type name`, `root field` per
   * namespace...): a table claims ~40 names, and building a `kind:namespace:name`
   * key per name and lookup was most of the catalog's "tables" stage at 2,000 tables.
   */
  readonly #owners = new Map<string, Map<string, string>>();
  /** Type names claimed with {@link claimShared}: their owner may claim them again. */
  readonly #shared = new Set<string>();

  /** The owners of names of kind `what`; root fields under different namespaces do not meet, type names are global. */
  #of(what: string, namespace: string): Map<string, string> {
    const k = what === 'root field' ? `${what}:${namespace}` : what;
    let m = this.#owners.get(k);
    if (m === undefined) {
      m = new Map();
      this.#owners.set(k, m);
    }
    return m;
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
    if (other !== undefined && !(other === owner && this.#shared.has(name))) return `the type name "${name}" of ${owner} conflicts with the one of ${other}`;
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
    const plan = claimPlan(t, c);
    const types = this.#of('type name', '');
    const roots = this.#of('root field', plan.namespace);
    const { names, isRoot } = plan;
    for (let i = 0; i < names.length; i++) {
      if (i === plan.selfClashAt) return plan.selfClash;
      const n = names[i] as string;
      const root = isRoot[i] === 1;
      const other = (root ? roots : types).get(n);
      if (other !== undefined && !(other === plan.owner && !root && this.#shared.has(n))) {
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
    const own = new Map<Map<string, string>, Set<string>>();
    const tables: Array<Map<string, string>> = [];
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
      if (other !== undefined && !(other === owner && what === 'type name' && this.#shared.has(n))) {
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

/** The names of one draft as {@link NameRegistry.claim} checks them. */
interface ClaimPlan {
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

function claimPlan(t: TableDraft, c: SourceCustomizationInfo | undefined): ClaimPlan {
  const known = plans.get(t);
  if (known !== undefined && known.customization === c) return known;
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
