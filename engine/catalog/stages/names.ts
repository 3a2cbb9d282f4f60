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
   */
  claim(t: TableDraft, c?: SourceCustomizationInfo): string | null {
    const owner = `table "${t.naming.format(t.entry.table)}" in source "${t.source}"`;
    const names: Array<[string, string]> = [[customizeTypeName(c, t.gqlName), 'type name']];
    // The derived types (`<t>_bool_exp`, `<t>_aggregate`, `<t>_insert_input`, ...) are global too.
    for (const n of derivedTableTypeNames(t.gqlName, t.enumValues !== null)) names.push([customizeTypeName(c, n), 'type name']);
    for (const n of Object.values(t.rootFields)) names.push([n, 'root field']);
    return this.claimNames(owner, names, t.gqlName, c?.namespace ?? '');
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
