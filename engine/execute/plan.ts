/**
 * Root fields → an executable plan: one statement per source holding all of
 * that source's query root fields, plus the static fields (introspection,
 * `__typename`), compiled by the source's backend (Note [Backend seam] in
 * backends/registry.ts).
 */
import type * as ir from '../ir/index.ts';
import type { SourceConnection } from '../backends/backend.ts';
import type { CompiledSql } from '../backends/sql/fragment.ts';
import type { Catalog } from '../catalog/types.ts';
import { backendFor } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { buildMutationPlan, type MutationPlan } from './mutation-plan.ts';
import { isMutationField } from '../ir/root.ts';

/** One statement of a plan. */
export interface PlannedStatement {
  readonly source: string;
  readonly connection: SourceConnection;
  readonly sql: CompiledSql;
}

/** A compiled plan: run the statements, splice their JSON objects. */
export interface Plan {
  readonly statements: readonly PlannedStatement[];
  /** With no statement, the whole `data` object as JSON text. */
  readonly staticData: string | null;
  /**
   * True when splicing the statements' objects in order would not give the
   * query's field order (root fields of several sources interleaved); the
   * response is then rebuilt in order.
   */
  readonly needsReorder: boolean;
  /** Root field aliases in query order (for reordering). */
  readonly order: readonly string[];
  /** The IR, kept for explain. */
  readonly fields: readonly ir.RootField[];
  /** For a mutation operation, its plan (see mutation-plan.ts); null for queries and subscriptions. */
  readonly mutation: MutationPlan | null;
}

/** Builds the plan of `fields` against `catalog`. */
export function buildPlan(fields: readonly ir.RootField[], catalog: Catalog): Plan {
  const order = fields.map((f) => f.alias);
  if (fields.some(isMutationField)) {
    return { statements: [], staticData: null, needsReorder: false, order, fields, mutation: buildMutationPlan(fields, catalog) };
  }
  const bySource = new Map<string, ir.DbRootField[]>();
  const statics: ir.StaticRootField[] = [];
  const sourceOrder: string[] = [];
  for (const f of fields) {
    if (f.kind === 'static') {
      statics.push(f);
      continue;
    }
    if (f.kind === 'mutation') continue;
    let list = bySource.get(f.source);
    if (list === undefined) {
      list = [];
      bySource.set(f.source, list);
      sourceOrder.push(f.source);
    }
    list.push(f);
  }
  if (bySource.size === 0) {
    const data = `{${statics.map((s) => `${JSON.stringify(s.alias)}:${s.json}`).join(',')}}`;
    return { statements: [], staticData: data, needsReorder: false, order, fields, mutation: null };
  }
  const statements: PlannedStatement[] = [];
  sourceOrder.forEach((name, i) => {
    const source = catalog.sources.get(name);
    if (source === undefined) throw new EngineError(ErrorCode.Unexpected, `source "${name}" is not available`);
    const own = bySource.get(name) ?? [];
    // Static fields ride along in the first statement (as parameters), in query order.
    const mine = i === 0 ? fields.filter((f): f is ir.QueryRootField => f.kind === 'static' || (f.kind !== 'mutation' && own.includes(f))) : own;
    statements.push({ source: name, connection: source.connection, sql: backendFor(source.kind).compile.query(mine) });
  });
  let needsReorder = false;
  if (statements.length > 1) {
    const spliced = statements.flatMap((_, i) => {
      const own = bySource.get(sourceOrder[i] ?? '') ?? [];
      return i === 0 ? fields.filter((f) => f.kind === 'static' || (f.kind !== 'mutation' && own.includes(f))) : own;
    });
    needsReorder = spliced.some((f, i) => f.alias !== order[i]);
  }
  return { statements, staticData: null, needsReorder, order, fields, mutation: null };
}
