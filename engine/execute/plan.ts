/**
 * Root fields → a plan: a list of typed steps (Note [Plan steps]), compiled by
 * the sources' backends (Note [Backend seam] in backends/registry.ts).
 *
 * Note [Plan steps]
 * A plan is a list of steps, each a member of one discriminated union:
 * - `read`: one statement per source, holding all of that source's query
 *   root fields; the first read also carries the static fields (as
 *   parameters), so a query's `data` is spliced from the databases' JSON text.
 * - `write`: a mutation operation's root fields, run in one transaction per
 *   source in request order (mutation-plan.ts).
 * - `static`: the whole `data` object as JSON text, when no field needs a
 *   database (introspection, `__typename`).
 * Every step may carry `joins` (StepJoin): work to run on its result and
 * splice into it. The kinds of the next issues slot in here without touching
 * the request steps around them: `remote` (a remote schema's root fields:
 * one HTTP request per remote schema) and `action` (a webhook call) are new
 * members whose results are JSON text like a read's, joined into `data`
 * the same way; remote relationships are `joins` of a read step, whose
 * executor (collect the join keys from the result, one remote call, splice
 * by key) comes with remote schemas; `live` (subscriptions) is a read step
 * run repeatedly by a poller, multiplexed per statement, so it is a way of
 * running steps rather than a step (engine/subscriptions/live-queries.ts runs
 * a plan's read step multiplexed: Note [Multiplexed live queries]). They are not members of the union until
 * they have a consumer: an unused member is a `switch` case nothing can test.
 * `respond` splices JSON text without parsing unless the plan needs
 * post-processing (`needsPostProcessing`): root fields of several sources
 * interleaved, or a step with joins.
 */
import type * as ir from '../ir/index.ts';
import type { SourceConnection } from '../backends/backend.ts';
import type { CompiledSql } from '../backends/sql/fragment.ts';
import type { Catalog } from '../catalog/types.ts';
import type { ActionInfo, CustomTypesInfo } from '../actions/types.ts';
import { backendFor } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { planWrites, type PlannedMutationField } from './mutation-plan.ts';
import { isMutationField } from '../ir/root.ts';

/**
 * Work to run on a step's result and splice into it at `path` (remote
 * relationships; Note [Plan steps]). No planner emits one yet.
 */
export interface StepJoin {
  /** Response keys from the step's result object down to the joined field. */
  readonly path: readonly string[];
  /** The step that produces the joined values. */
  readonly step: PlanStep;
}

interface StepBase {
  readonly joins?: readonly StepJoin[];
}

/** One statement on one source: that source's query root fields. */
export interface ReadStep extends StepBase {
  readonly kind: 'read';
  readonly source: string;
  readonly connection: SourceConnection;
  readonly sql: CompiledSql;
}

/** A mutation operation's root fields: one transaction per source (mutation-plan.ts). */
export interface WriteStep extends StepBase {
  readonly kind: 'write';
  readonly fields: readonly PlannedMutationField[];
}

/** The `data` object as JSON text, no database involved. */
export interface StaticStep extends StepBase {
  readonly kind: 'static';
  readonly json: string;
}

/**
 * An action root field (Note [Plan steps]): a handler call, an asynchronous
 * submission or a result read, run by execute/action-step.ts. Its
 * relationship fields read their rows with one statement per source.
 */
export interface ActionStep extends StepBase {
  readonly kind: 'action';
  readonly field: ir.ActionRootField;
  readonly action: ActionInfo;
  /** The custom types the output is checked against. */
  readonly types: CustomTypesInfo;
  readonly reads: readonly ActionRelationshipStatement[];
}

/** One statement reading the rows of an action field's relationships on one source (`indexes` into `field.relationships`). */
export interface ActionRelationshipStatement {
  readonly source: string;
  readonly connection: SourceConnection;
  readonly sql: CompiledSql;
  readonly indexes: readonly number[];
}

/** A step of a plan (Note [Plan steps]). */
export type PlanStep = ReadStep | WriteStep | StaticStep | ActionStep;

/** A compiled plan: run its steps, splice their JSON objects. */
export interface Plan {
  readonly steps: readonly PlanStep[];
  /**
   * True when splicing the steps' objects in order would not give the
   * query's field order (root fields of several sources interleaved); the
   * response is then rebuilt in order.
   */
  readonly needsReorder: boolean;
  /** Root field aliases in query order (for reordering). */
  readonly order: readonly string[];
  /** The IR, kept for explain. */
  readonly fields: readonly ir.OperationField[];
}

/** True when the response cannot be spliced as is (Note [Plan steps]). */
export function needsPostProcessing(plan: Plan): boolean {
  return plan.needsReorder || plan.steps.some((s) => s.joins !== undefined && s.joins.length > 0);
}

/** Every statement of `plan`, in the order they run (reads, then each write's statements). */
export function planStatements(plan: Plan): CompiledSql[] {
  const out: CompiledSql[] = [];
  const writes = (fields: readonly PlannedMutationField[]): void => {
    for (const f of fields) {
      if (f.kind === 'write') for (const s of f.compiled.statements) out.push(s.sql);
      else if (f.kind === 'namespace') writes(f.fields);
    }
  };
  for (const s of plan.steps) {
    if (s.kind === 'read') out.push(s.sql);
    else if (s.kind === 'write') writes(s.fields);
  }
  return out;
}

/** The step of an action field: its relationship reads compiled, one statement per source. */
function actionStep(f: ir.ActionRootField, catalog: Catalog): ActionStep {
  const action = catalog.actions?.actions.get(f.action);
  const types = catalog.actions?.customTypes;
  if (action === undefined || types === undefined) throw new EngineError(ErrorCode.Unexpected, `action "${f.action}" is not available`);
  const bySource = new Map<string, number[]>();
  f.relationships.forEach((r, i) => {
    const list = bySource.get(r.source) ?? [];
    list.push(i);
    bySource.set(r.source, list);
  });
  const reads: ActionRelationshipStatement[] = [];
  for (const [name, indexes] of bySource) {
    const source = catalog.sources.get(name);
    if (source === undefined) throw new EngineError(ErrorCode.Unexpected, `source "${name}" is not available`);
    const sql = backendFor(source.kind).compile.query(indexes.map((i) => (f.relationships[i] as ir.ActionRelationshipRead).read));
    reads.push({ source: name, connection: source.connection, sql, indexes });
  }
  return { kind: 'action', field: f, action, types, reads };
}

/**
 * Builds the plan of `fields` against `catalog`. Action fields are steps of
 * their own: in a mutation they run in request order between the database
 * writes; in a query beside the reads, the response rebuilt in field order.
 */
export function buildPlan(fields: readonly ir.OperationField[], catalog: Catalog): Plan {
  if (!fields.some((f) => f.kind === 'action')) return buildDbPlan(fields as readonly ir.RootField[], catalog);
  const order = fields.map((f) => f.alias);
  const isMutation = fields.some((f) => (f.kind === 'action' ? f.operation === 'mutation' : isMutationField(f)));
  if (isMutation) {
    const steps: PlanStep[] = [];
    let group: ir.RootField[] = [];
    const flush = (): void => {
      if (group.length > 0) steps.push({ kind: 'write', fields: planWrites(group, catalog) });
      group = [];
    };
    for (const f of fields) {
      if (f.kind === 'action') {
        flush();
        steps.push(actionStep(f, catalog));
      } else group.push(f);
    }
    flush();
    return { steps, needsReorder: false, order, fields };
  }
  const db = fields.filter((f): f is ir.RootField => f.kind !== 'action');
  const base = db.length === 0 ? [] : buildDbPlan(db, catalog).steps;
  const steps: PlanStep[] = [...base, ...fields.filter((f): f is ir.ActionRootField => f.kind === 'action').map((f) => actionStep(f, catalog))];
  return { steps, needsReorder: steps.length > 1, order, fields };
}

/** The plan of database (and static) root fields. */
function buildDbPlan(fields: readonly ir.RootField[], catalog: Catalog): Plan {
  const order = fields.map((f) => f.alias);
  if (fields.some(isMutationField)) {
    return { steps: [{ kind: 'write', fields: planWrites(fields, catalog) }], needsReorder: false, order, fields };
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
    const json = `{${statics.map((s) => `${JSON.stringify(s.alias)}:${s.json}`).join(',')}}`;
    return { steps: [{ kind: 'static', json }], needsReorder: false, order, fields };
  }
  const steps: ReadStep[] = [];
  sourceOrder.forEach((name, i) => {
    const source = catalog.sources.get(name);
    if (source === undefined) throw new EngineError(ErrorCode.Unexpected, `source "${name}" is not available`);
    const own = bySource.get(name) ?? [];
    // Static fields ride along in the first statement (as parameters), in query order.
    const mine = i === 0 ? fields.filter((f): f is ir.QueryRootField => f.kind === 'static' || (f.kind !== 'mutation' && own.includes(f))) : own;
    steps.push({ kind: 'read', source: name, connection: source.connection, sql: backendFor(source.kind).compile.query(mine) });
  });
  let needsReorder = false;
  if (steps.length > 1) {
    const spliced = steps.flatMap((_, i) => {
      const own = bySource.get(sourceOrder[i] ?? '') ?? [];
      return i === 0 ? fields.filter((f) => f.kind === 'static' || (f.kind !== 'mutation' && own.includes(f))) : own;
    });
    needsReorder = spliced.some((f, i) => f.alias !== order[i]);
  }
  return { steps, needsReorder, order, fields };
}
