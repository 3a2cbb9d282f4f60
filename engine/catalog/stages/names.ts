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
  readonly #owners = new Map<string, string>();
  /** Keys claimed with {@link claimShared}: their owner may claim them again. */
  readonly #shared = new Set<string>();

  /**
   * Claims the type names no table may take: GraphQL's scalars, the root
   * types, the shared enums, and the scalars of `dbTypes` (the column types of
   * every tracked table, claimed up front so that a table named `uuid` is the
   * one refused, not a later table with a uuid column). Customized sources
   * prefix their table types, so a clash there is caught by the schema build
   * (graphql/schema/schema-cache.ts) instead.
   */
  reserve(dbTypes: ReadonlyMap<string, ScalarInfo>): void {
    for (const n of RESERVED_TYPE_NAMES) this.#owners.set(`type name::${n}`, 'the GraphQL schema itself');
    for (const [t, scalar] of dbTypes) {
      const n = scalarName(scalar);
      this.#owners.set(`type name::${n}`, `the scalar of database type "${t}"`);
    }
  }

  /**
   * Claims a type name its owner may claim more than once (a function's
   * `<fn>_args`, used by every computed field over it and by the tracked
   * function), or returns the clash with another owner.
   */
  claimShared(owner: string, name: string): string | null {
    const k = `type name::${name}`;
    const other = this.#owners.get(k);
    if (other !== undefined && !(other === owner && this.#shared.has(k))) return `the type name "${name}" of ${owner} conflicts with the one of ${other}`;
    this.#owners.set(k, owner);
    this.#shared.add(k);
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
    // Root fields under different namespaces do not meet; type names are global.
    const key = (n: string, what: string): string => `${what}:${what === 'root field' ? namespace : ''}:${n}`;
    const own = new Set<string>();
    for (const [n, what] of names) {
      if (own.has(key(n, what)) && (what !== 'root field' || n !== base)) {
        return `the ${what} "${n}" is used twice by ${owner}`;
      }
      own.add(key(n, what));
      const other = this.#owners.get(key(n, what));
      if (other !== undefined && !(other === owner && this.#shared.has(key(n, what))))
        return `the ${what} "${n}" of ${owner} conflicts with the one of ${other}`;
    }
    for (const [n, what] of names) this.#owners.set(key(n, what), owner);
    return null;
  }
}
