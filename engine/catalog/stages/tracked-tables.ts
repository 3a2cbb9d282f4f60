/**
 * Stage "tables" over every source: each tracked table entry → its
 * {@link TableDraft} (tables.ts), its GraphQL names claimed in document order
 * (names.ts: a later table that clashes is inconsistent). Then stage "enum
 * links": a column with a single-column foreign key to a consistent enum
 * table takes that enum.
 */
import type { Backend, ScalarInfo } from '../../backends/backend.ts';
import { didYouMean } from '../../errors/suggest.ts';
import { sourceInconsistency } from '../inconsistency.ts';
import { tableKey, type InconsistentObject, type SourceCustomizationInfo } from '../types.ts';
import type { TableMetadata } from '../../model/document.ts';
import { scalarName } from '../graphql-names.ts';
import { CatalogMemo, recording, type Read } from '../memo.ts';
import { customizeRootFields } from './customization.ts';
import { claimPlan, NameRegistry, samePlan, type ClaimPlan } from './names.ts';
import type { ResolvedSource } from './sources.ts';
import type { StageResult } from './stage.ts';
import { resolveTable, type TableDraft } from './tables.ts';

/** A source's consistent tables by `schema.name`, and the keys of every table it tracks. */
export interface SourceTables {
  readonly tables: ReadonlyMap<string, TableDraft>;
  readonly tracked: ReadonlySet<string>;
}

/** Per source, its tables. */
export type TablesBySource = ReadonlyMap<ResolvedSource, SourceTables>;

/** The output of the tables stage: the tables, and the registry later stages claim their names in. */
export interface TablesOutput {
  readonly tables: TablesBySource;
  /** Handed on to computed fields and functions, which claim in it in stage order (Note [Catalog stages]). */
  readonly names: NameRegistry;
}

/** One scalar lookup per backend, so that drafts made in different builds hold the same function (Note [Catalog memo]). */
const scalarOf = new WeakMap<Backend, (dbType: string) => ScalarInfo>();
function scalarLookup(backend: Backend): (dbType: string) => ScalarInfo {
  let f = scalarOf.get(backend);
  if (f === undefined) {
    f = (dbType) => backend.scalar(dbType);
    scalarOf.set(backend, f);
  }
  return f;
}

/**
 * The table claims of a build, for the next one (Note [Layered name claims] in
 * names.ts): the reserved names, the names each table claimed in order, what
 * each claim answered, and the registry right after them (frozen).
 */
interface TableClaims {
  readonly reserved: readonly string[];
  readonly plans: readonly ClaimPlan[];
  readonly results: ReadonlyArray<string | null>;
  readonly registry: NameRegistry;
}

/** The key of the one TableClaims record a build keeps. */
const CLAIMS = {};

/**
 * Claims the tables' names in order, starting from the previous build's
 * registry while the claims are the same drafts in the same order (Note
 * [Layered name claims] in names.ts).
 */
class TableClaimer {
  readonly #previous: TableClaims | undefined;
  readonly #dbTypes: ReadonlyMap<string, ScalarInfo>;
  readonly #reserved: readonly string[];
  readonly #plans: ClaimPlan[] = [];
  readonly #results: Array<string | null> = [];
  #registry: NameRegistry | null = null;

  constructor(previous: TableClaims | undefined, dbTypes: ReadonlyMap<string, ScalarInfo>) {
    this.#dbTypes = dbTypes;
    this.#reserved = [...dbTypes].map(([t, scalar]) => `${t}\0${scalarName(scalar)}`);
    const same = previous !== undefined && previous.reserved.length === this.#reserved.length && previous.reserved.every((r, i) => r === this.#reserved[i]);
    this.#previous = same ? previous : undefined;
  }

  claim(t: TableDraft, c: SourceCustomizationInfo): string | null {
    const plan = claimPlan(t, c);
    const i = this.#plans.length;
    const p = this.#previous;
    const before = p === undefined || this.#registry !== null ? undefined : p.plans[i];
    const result = before !== undefined && samePlan(before, plan) ? (p?.results[i] ?? null) : this.#open().claimPlanned(plan);
    this.#plans.push(plan);
    this.#results.push(result);
    return result;
  }

  /** The registry to claim in from here: over the previous build's when all its claims were repeated, else made again. */
  #open(): NameRegistry {
    if (this.#registry !== null) return this.#registry;
    const p = this.#previous;
    if (p !== undefined && this.#plans.length === p.plans.length) {
      this.#registry = new NameRegistry(p.registry);
      return this.#registry;
    }
    const fresh = new NameRegistry();
    fresh.reserve(this.#dbTypes);
    for (const plan of this.#plans) fresh.claimPlanned(plan);
    this.#registry = fresh;
    return fresh;
  }

  /** This build's record (its registry frozen), and a registry over it for the stages after the tables. */
  finish(): { readonly record: TableClaims; readonly names: NameRegistry } {
    const p = this.#previous;
    const reused = this.#registry === null && p !== undefined && this.#plans.length === p.plans.length;
    const registry = reused ? p.registry : this.#open();
    const record = { reserved: this.#reserved, plans: this.#plans, results: this.#results, registry };
    return { record, names: reused ? new NameRegistry(registry) : registry.layer() };
  }
}

/** Resolves the tracked tables of `sources`; `memo` gives the previous build's drafts and name claims (Note [Catalog memo]). */
export function resolveTables(sources: readonly ResolvedSource[], memo = new CatalogMemo()): StageResult<TablesOutput> {
  const bad: InconsistentObject[] = [];
  const claimsMemo = memo.stage<object, TableClaims>('table names');
  const claimer = new TableClaimer(claimsMemo.reuse(CLAIMS, []), columnTypesOf(sources));
  const out = new Map<ResolvedSource, SourceTables>();
  const drafts = memo.stage<TableMetadata, TableDraft | { reason: string }>('drafts');
  for (const s of sources) {
    const tables = new Map<string, TableDraft>();
    const tracked = new Set<string>();
    const backend = s.backend;
    const scalar = scalarLookup(backend);
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      tracked.add(key);
      const ref = { kind: 'table', source: s.meta.name, table: entry.table } as const;
      const intro = s.prepared.introspection.tables.get(key);
      if (intro === undefined) {
        const name = backend.naming.format(entry.table);
        const near = didYouMean(
          name,
          [...s.prepared.introspection.tables.values()].map((t) => backend.naming.format(t.name)),
        );
        bad.push(sourceInconsistency(backend.naming, ref, entry.table, `no such table/view exists in source: "${name}"${near}`));
        continue;
      }
      const enumRows = s.prepared.enumRows.get(key);
      // The customization is the document's object: the resolved one is made anew by every build.
      const deps = [intro, enumRows, backend, s.meta.name, s.meta.customization];
      let r = drafts.reuse(entry, deps);
      if (r === undefined) {
        const resolved = resolveTable(s.meta.name, entry, intro, enumRows, scalar, backend.naming);
        r = drafts.keep(entry, deps, 'reason' in resolved ? resolved : { ...resolved, rootFields: customizeRootFields(s.customization, resolved.rootFields) });
      }
      if ('reason' in r) {
        bad.push(sourceInconsistency(backend.naming, ref, entry.table, r.reason));
        continue;
      }
      const clash = claimer.claim(r, s.customization);
      if (clash !== null) {
        bad.push(sourceInconsistency(backend.naming, ref, entry.table, clash));
        continue;
      }
      tables.set(key, r);
    }
    out.set(s, { tables, tracked });
  }
  const { record, names } = claimer.finish();
  claimsMemo.keep(CLAIMS, [], record);
  return { output: { tables: out, names }, inconsistencies: bad };
}

/** `tables` with enum links: new drafts for the tables with a column that takes an enum table's enum. */
export function linkEnumTables(tables: TablesBySource, memo = new CatalogMemo()): TablesBySource {
  const out = new Map<ResolvedSource, SourceTables>();
  const links = memo.stage<TableDraft, TableDraft>('enum links');
  for (const [s, st] of tables) {
    const linked = new Map<string, TableDraft>();
    // Whether a table is a consistent enum table: all a link reads of another table.
    const isEnum = (k: string): boolean => (st.tables.get(k)?.enumValues ?? null) !== null;
    for (const [key, t] of st.tables) {
      const hit = links.reuse(t, [], isEnum);
      if (hit !== undefined) {
        linked.set(key, hit);
        continue;
      }
      const reads: Read[] = [];
      const enumTarget = recording(reads, tableKey, isEnum);
      let changed = false;
      const columns = t.columns.map((c) => {
        const fk = t.introspected.foreignKeys.find((k) => k.columnMapping.length === 1 && k.columnMapping[0]?.[0] === c.name);
        if (fk === undefined || !enumTarget(fk.target)) return c;
        changed = true;
        return { ...c, enumTable: fk.target };
      });
      linked.set(key, links.keep(t, [], changed ? { ...t, columns } : t, reads));
    }
    out.set(s, { tables: linked, tracked: st.tracked });
  }
  return out;
}

/** The database types of the columns of every tracked table (element types of arrays too). */
function columnTypesOf(sources: readonly ResolvedSource[]): Map<string, ScalarInfo> {
  const out = new Map<string, ScalarInfo>();
  for (const s of sources) {
    const backend = s.backend;
    for (const entry of s.meta.tables) {
      for (const c of s.prepared.introspection.tables.get(tableKey(entry.table))?.columns ?? []) {
        const t = c.elementType ?? c.dbType;
        if (!out.has(t)) out.set(t, backend.scalar(t));
      }
    }
  }
  return out;
}
