/**
 * Compiled operations, so a repeated request does no parse, validate or SQL
 * building.
 *
 * Note [Plan cache keys]
 * An entry is keyed by (catalog version, role view, operationName, query text)
 * (a role view is the role, apart for requests using backend-only
 * permissions: auth/session.ts roleViewKey) and
 * holds the parsed, validated operation. Its plans are keyed by the values of
 * the operation's *structural* variables: those whose value shapes the SQL
 * (an input object such as `where: $w`, an enum, `_is_null`, an `@include`
 * condition, anything an introspection field reads). Variables used only at
 * leaf positions (`_eq: $id`, `limit: $n`, `_in: $ids`) are parameter slots
 * and never part of the key, so the common case has exactly one plan per
 * entry and a hit only binds values. Which variables are structural is
 * learned while translating; the set only grows (a skipped branch may hide
 * some until it is taken), and because keys name the variables they cover, a
 * plan is reused only by requests agreeing on every variable that shaped it.
 * Variables holding mutation input objects are keyed by their shape only
 * (see Note [Mutation inputs as JSON] in ir/mutation.ts).
 * A new catalog version empties the cache; entries are evicted LRU.
 *
 * Note [Plan cache bytes]
 * The cache is bounded by an estimate of the bytes its entries keep, not by
 * their number: 1,100 distinct 51 KB queries once kept 3.8 MB each and the
 * process died of heap exhaustion under an entry bound of 4,096. The estimate
 * is taken at insert time from lengths already at hand, never by walking the
 * heap: the parsed document (parsed without locations, see validate.ts) keeps
 * 32-47 bytes per character of query text (measured with graphql-js on a
 * 205-character AlbumByPK query, a 166-character nested one and a
 * 4,000-alias 59 KB one), so AST_BYTES_PER_CHAR is 48; a plan keeps its SQL
 * text and the IR it was compiled from, which grows with the SQL, so
 * PLAN_BYTES_PER_SQL_CHAR is 4, plus each parameter slot and the static data.
 * Checked against the heap (node --expose-gc, heapUsed after gc, 500 distinct
 * operations on the music fixture): the estimate is 1.00 of the real size for
 * a one-table query with a variable, 1.39 for two root fields with arguments
 * and 1.17 for 300 aliases: it errs on the safe side.
 * Only operations that ran without error are stored (see graphql-service.ts),
 * and an entry estimated above a sixteenth of the budget is never stored: one
 * request must not flush the cache of everyone else.
 */
import type { RoleOperation } from '../graphql/role-operation.ts';
import { shapeKey } from '../graphql/to-ir/mutation-input.ts';
import type { PlannedMutationField } from './mutation-plan.ts';
import type { OperationCost } from './operation-cost.ts';
import type { Plan } from './plan.ts';
import type { ScalarCoercer } from './scalar-variables.ts';

/** A parsed, validated operation and its plans. */
export interface OperationEntry {
  /** The operation as its role's schema reads it (graphql/role-operation.ts). */
  readonly op: RoleOperation;
  /** Names of structural variables seen so far. */
  readonly structural: string[];
  /** Names of shape variables seen so far (mutation input rows: only their shape keys the plan). */
  readonly shaped: string[];
  /** Plans by structural-variable key (see {@link structuralKey}). */
  readonly plans: Map<string, Plan>;
  /** Depth and node counts of the operation (Note [Operation cost]), measured once on the miss. */
  readonly cost: OperationCost;
  /** Coerces variables of built-in scalar types at once (Note [Scalar variables at once]); null or absent: the general path. */
  readonly scalars?: ScalarCoercer | null;
  /** Estimated bytes kept (Note [Plan cache bytes]); grows as plans are added. */
  bytes: number;
}

/** Estimated heap bytes per character of query text kept as a parsed document. */
const AST_BYTES_PER_CHAR = 48;
/** Estimated heap bytes per character of a plan's SQL (the text and its IR). */
const PLAN_BYTES_PER_SQL_CHAR = 4;
/** Fixed cost of an entry (its maps, arrays and small objects) and of a plan. */
const ENTRY_BYTES = 2560;
const OBJECT_BYTES = 512;
const PARAM_BYTES = 64;

/** The estimated bytes an entry for `query` keeps before any plan (key included). */
export function entryBytes(key: string, query: string): number {
  return ENTRY_BYTES + key.length + query.length * AST_BYTES_PER_CHAR;
}

/** The estimated bytes a plan keeps. */
export function planBytes(plan: Plan): number {
  let n = OBJECT_BYTES;
  for (const s of plan.steps) {
    if (s.kind === 'static') n += s.json.length;
    else if (s.kind === 'read') n += s.sql.text.length * PLAN_BYTES_PER_SQL_CHAR + s.sql.params.length * PARAM_BYTES;
    // The remote document is kept as text, with its member list (the schema it points to is the catalog's).
    else if (s.kind === 'remote') n += OBJECT_BYTES + s.body.query.length * 2 + s.body.members.length * OBJECT_BYTES;
    else if (s.kind === 'action') {
      n += OBJECT_BYTES * 4 + s.field.requestQuery.length;
      for (const r of s.reads) n += r.sql.text.length * PLAN_BYTES_PER_SQL_CHAR + r.sql.params.length * PARAM_BYTES;
    } else n += mutationBytes(s.fields);
  }
  return n;
}

function mutationBytes(fields: readonly PlannedMutationField[]): number {
  let n = 0;
  for (const f of fields) {
    if (f.kind === 'static') n += OBJECT_BYTES + f.json.length;
    else if (f.kind === 'namespace') n += mutationBytes(f.fields);
    else for (const s of f.compiled.statements) n += OBJECT_BYTES + s.sql.text.length * PLAN_BYTES_PER_SQL_CHAR + s.sql.params.length * PARAM_BYTES;
  }
  return n;
}

/** Most plans kept per entry (distinct structural values). */
const MAX_PLANS_PER_ENTRY = 64;

/** The key of a request's plan within its entry. */
export function structuralKey(entry: OperationEntry, variables: Readonly<Record<string, unknown>>): string {
  if (entry.structural.length === 0 && entry.shaped.length === 0) return '';
  let key = '';
  for (const name of entry.structural) key += `${name}=${JSON.stringify(variables[name] ?? null)}\u0000`;
  for (const name of entry.shaped) key += `${name}~${shapeKey(variables[name] ?? null)}\u0000`;
  return key;
}

/** An LRU map of operation entries for one catalog version at a time, bounded by estimated bytes. */
export class PlanCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, OperationEntry>();
  #bytes = 0;
  #version = -1;
  /** The entry last in the map's order (the most recently used), or null. */
  #newest: OperationEntry | null = null;
  /** The role view, operation name and query text of `#newest` when `find` last hit it (query null: not known). */
  #newestRole = '';
  #newestOperation: string | null = null;
  #newestQuery: string | null = null;
  /** Lookups that found / did not find their entry (read by the metrics when scraped). */
  hits = 0;
  misses = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The key of a request's entry (`role`: its roleViewKey). */
  static key(role: string, operationName: string | null, query: string): string {
    return `${role}\u0000${operationName ?? ''}\u0000${query}`;
  }

  /**
   * The entry of a request (`role`: its roleViewKey), refreshing its recency.
   * Note [Repeated operation lookups] (issue 35): a request for the entry
   * already most recent (a hot query repeated) is found by comparing its
   * parts with that entry's, without building its key: the key is a new
   * string of role, name and query per request, which a Map lookup hashes and
   * compares in full (`get` of plan-cache.ts was 0.48 µs of self time per
   * AlbumByPK request in a `--cpu-prof` under load). Any other request goes
   * through the map as before.
   */
  find(version: number, role: string, operationName: string | null, query: string): OperationEntry | undefined {
    const newest = this.#newest;
    if (newest !== null && version === this.#version && this.#newestQuery === query && this.#newestRole === role && this.#newestOperation === operationName) {
      this.hits++;
      return newest;
    }
    const e = this.get(version, PlanCache.key(role, operationName, query));
    if (e !== undefined) {
      // `get` made it the most recent.
      this.#newestRole = role;
      this.#newestOperation = operationName;
      this.#newestQuery = query;
    }
    return e;
  }

  /** The entry under `key`, refreshing its recency. */
  get(version: number, key: string): OperationEntry | undefined {
    if (version !== this.#version) {
      this.misses++;
      return undefined;
    }
    const e = this.#entries.get(key);
    if (e !== undefined) {
      this.hits++;
      // Already the most recent (a hot query repeated): moving it to the end would change nothing.
      if (e !== this.#newest) {
        this.#entries.delete(key);
        this.#entries.set(key, e);
        this.#setNewest(e);
      }
    } else this.misses++;
    return e;
  }

  /**
   * Stores `plan` under `planKey` in `entry`, and the entry under `key` if it
   * is not there yet; a newer catalog version first drops every older entry.
   * Oversized entries are not stored (Note [Plan cache bytes]).
   */
  store(version: number, key: string, entry: OperationEntry, planKey: string, plan: Plan): void {
    if (version < this.#version) return;
    if (version > this.#version) this.clear(version);
    const cached = this.#entries.get(key) === entry;
    let added = planBytes(plan);
    if (entry.plans.size >= MAX_PLANS_PER_ENTRY) {
      const oldest = entry.plans.entries().next();
      if (oldest.done !== true) {
        entry.plans.delete(oldest.value[0]);
        added -= planBytes(oldest.value[1]);
      }
    }
    if (entry.bytes + added > this.#maxBytes / 16) {
      // Too big to keep: forget it (and its other plans) rather than grow it.
      if (cached) this.#drop(key, entry);
      return;
    }
    entry.plans.set(planKey, plan);
    entry.bytes += added;
    if (cached) this.#bytes += added;
    else {
      this.#entries.set(key, entry);
      this.#setNewest(entry);
      this.#bytes += entry.bytes;
    }
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(k, e);
    }
  }

  /** Makes `entry` the most recent; its parts are not known until `find` hits it. */
  #setNewest(entry: OperationEntry | null): void {
    this.#newest = entry;
    this.#newestQuery = null;
  }

  #drop(key: string, entry: OperationEntry): void {
    if (entry === this.#newest) this.#setNewest(null);
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  /** Drops everything (catalog swap). */
  clear(version = this.#version): void {
    this.#entries.clear();
    this.#setNewest(null);
    this.#bytes = 0;
    this.#version = version;
  }

  /** Number of cached operations. */
  get size(): number {
    return this.#entries.size;
  }

  /** Estimated bytes kept. */
  get bytes(): number {
    return this.#bytes;
  }
}
