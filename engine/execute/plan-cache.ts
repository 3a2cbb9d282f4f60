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
 */
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { NamingConvention } from '../graphql/schema/naming-convention.ts';
import { shapeKey } from '../graphql/to-ir/mutation-input.ts';
import type { Plan } from './plan.ts';

/** A parsed, validated operation and its plans. */
export interface OperationEntry {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly hasVariables: boolean;
  /** Names of structural variables seen so far. */
  readonly structural: string[];
  /** Names of shape variables seen so far (mutation input rows: only their shape keys the plan). */
  readonly shaped: string[];
  /** Plans by structural-variable key (see {@link structuralKey}). */
  readonly plans: Map<string, Plan>;
  /**
   * Under the graphql-default naming convention: the convention and the
   * operation in client names (variables are coerced against it). `schema`,
   * `document` and `operation` are then in default names; see Note [Renamed
   * schema] in graphql/schema/naming-convention.ts.
   */
  readonly naming?: { readonly convention: NamingConvention; readonly clientOperation: OperationDefinitionNode };
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

/** Stores a plan under its key, dropping the oldest when the entry is full. */
export function storePlan(entry: OperationEntry, key: string, plan: Plan): void {
  if (entry.plans.size >= MAX_PLANS_PER_ENTRY) {
    const oldest = entry.plans.keys().next();
    if (oldest.done !== true) entry.plans.delete(oldest.value);
  }
  entry.plans.set(key, plan);
}

/** An LRU map of operation entries for one catalog version at a time. */
export class PlanCache {
  readonly #max: number;
  readonly #entries = new Map<string, OperationEntry>();
  #version = -1;

  constructor(maxEntries: number) {
    this.#max = maxEntries;
  }

  static #key(role: string, operationName: string | null, query: string): string {
    return `${role}\u0000${operationName ?? ''}\u0000${query}`;
  }

  /** The entry for a request (`role`: its roleViewKey), refreshing its recency. */
  get(version: number, role: string, operationName: string | null, query: string): OperationEntry | undefined {
    if (version !== this.#version) return undefined;
    const key = PlanCache.#key(role, operationName, query);
    const e = this.#entries.get(key);
    if (e !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, e);
    }
    return e;
  }

  /** Stores an entry; a newer catalog version first drops every older entry. */
  set(version: number, role: string, operationName: string | null, query: string, entry: OperationEntry): void {
    if (version < this.#version) return;
    if (version > this.#version) {
      this.#entries.clear();
      this.#version = version;
    }
    const key = PlanCache.#key(role, operationName, query);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  /** Drops everything (catalog swap). */
  clear(): void {
    this.#entries.clear();
  }

  /** Number of cached operations. */
  get size(): number {
    return this.#entries.size;
  }
}
