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
 * - `remote`: the root fields of one remote schema, one HTTP request
 *   (remote-step.ts).
 * - `action`: one action root field, a webhook call or an asynchronous
 *   action's submission or result (action-step.ts).
 * Actions and remote fields are OperationFields beside the databases'
 * RootFields (ir/root.ts); buildSteps gives each its step. In a query all
 * steps run side by side; in a mutation (any step writing) they run in
 * request order, runs of database fields being one write step and runs of
 * one remote's fields one request (run.ts).
 * Every step may carry `joins` (StepJoin): work to run on its result and
 * splice into it. Remote relationships are `joins` of the read, write or
 * remote step answering their root field (collect the join keys from the
 * result, one remote call or statement per level, splice by key:
 * remote-join.ts). `live` (subscriptions) is a read step
 * run repeatedly by a poller, multiplexed per statement, so it is a way of
 * running steps rather than a step (engine/subscriptions/live-queries.ts runs
 * a plan's read step multiplexed: Note [Multiplexed live queries]). A kind is
 * not a member of the union until it has a consumer: an unused member is a
 * `switch` case nothing can test.
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
import { isMutationField, isRemoteField } from '../ir/root.ts';
import type { RemoteSchemaInfo } from '../remote/types.ts';
import { planRemoteRequest, type RemoteStepBody } from './remote-step.ts';
import { joinStatements, planJoins, type StepJoin } from './remote-join.ts';

export type { StepJoin } from './remote-join.ts';

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

/** A remote schema's root fields: one request to it (remote-step.ts). */
export interface RemoteStep extends StepBase {
  readonly kind: 'remote';
  /**
   * A mutation's remote step runs in request order with the writes and
   * actions (run.ts); a subscription's is served over graphql-ws by
   * subscriptions/remote-subscriptions.ts, never run.
   */
  readonly operation: 'query' | 'mutation' | 'subscription';
  readonly body: RemoteStepBody;
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
export type PlanStep = ReadStep | WriteStep | StaticStep | ActionStep | RemoteStep;

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
    if (s.joins !== undefined) out.push(...joinStatements(s.joins));
  }
  return out;
}

/** Builds the plan of `fields` against `catalog`, with `joins` on the steps whose results they join into. */
export function buildPlan(fields: readonly ir.OperationField[], catalog: Catalog, joins: readonly ir.Join[] = []): Plan {
  const plan = buildSteps(fields, catalog);
  return joins.length === 0 ? plan : attachJoins(plan, fields, catalog, joins);
}

/**
 * Gives each read, write or remote step the joins under its root fields (a
 * join's path starts at a root field's response key), grouped per response level
 * into one remote request per remote schema and one statement per source
 * (Note [Remote joins] in remote-join.ts).
 */
function attachJoins(plan: Plan, fields: readonly ir.OperationField[], catalog: Catalog, joins: readonly ir.Join[]): Plan {
  const stepOf = new Map<string, number>();
  plan.steps.forEach((step, i) => {
    for (const alias of stepAliases(step, fields)) stepOf.set(alias, i);
  });
  const byStep = new Map<number, ir.Join[]>();
  for (const j of joins) {
    const i = stepOf.get(j.path[0] ?? '');
    if (i === undefined) throw new EngineError(ErrorCode.Unexpected, `no step answers the root field of a join at ${j.path.join('.')}`, { path: '$' });
    byStep.set(i, [...(byStep.get(i) ?? []), j]);
  }
  const steps = plan.steps.map((step, i) => {
    const mine = byStep.get(i);
    return mine === undefined ? step : { ...step, joins: planJoins(mine, catalog) };
  });
  return { ...plan, steps };
}

/** The response keys of the root fields a step answers (the first key of its joins' paths). */
function stepAliases(step: PlanStep, fields: readonly ir.OperationField[]): string[] {
  switch (step.kind) {
    case 'read':
      return fields.filter((f) => (f.kind === 'select' || f.kind === 'aggregate' || f.kind === 'namespace') && f.source === step.source).map((f) => f.alias);
    case 'write':
      return step.fields.map((f) => f.alias);
    case 'remote':
      return step.body.members.map((m) => m.alias);
    case 'static':
    case 'action':
      return [];
  }
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
    const sql = backendFor(source.kind).compile.query(
      indexes.map((i) => (f.relationships[i] as ir.ActionRelationshipRead).read),
      source.target,
    );
    reads.push({ source: name, connection: source.connection, sql, indexes });
  }
  return { kind: 'action', field: f, action, types, reads };
}

/** Root fields planned as steps of their own: actions and remote schemas' fields. */
type OwnStepField = ir.ActionRootField | ir.RemoteRootField;

function hasOwnStep(f: ir.OperationField): f is OwnStepField {
  return f.kind === 'action' || isRemoteField(f);
}

/**
 * The steps of `fields`. Database and static fields are planned by
 * planLocal; an action field is a step of its own, and the fields of one
 * remote schema are one remote request. In a mutation every step runs in
 * request order (v2 runs a mutation's root fields in order): runs of
 * database fields are one write step, runs of one remote's fields one
 * request. In a query the steps run side by side, the response rebuilt in
 * field order when their keys interleave.
 */
function buildSteps(fields: readonly ir.OperationField[], catalog: Catalog): Plan {
  const order = fields.map((f) => f.alias);
  if (!fields.some(hasOwnStep)) return planLocal(fields as readonly ir.RootField[], catalog, order);
  const isMutation = fields.some((f) => (hasOwnStep(f) ? f.operation === 'mutation' : isMutationField(f)));
  if (isMutation) return { steps: mutationSteps(fields, catalog), needsReorder: false, order, fields };
  const local = fields.filter((f): f is ir.RootField => !hasOwnStep(f));
  const steps: PlanStep[] =
    local.length === 0
      ? []
      : [
          ...planLocal(
            local,
            catalog,
            local.map((f) => f.alias),
          ).steps,
        ];
  const keys: string[] = local.length === 0 ? [] : localKeys(local);
  const byRemote = new Map<string, ir.RemoteRootField[]>();
  for (const f of fields) {
    if (!isRemoteField(f)) continue;
    const list = byRemote.get(f.remote);
    if (list === undefined) byRemote.set(f.remote, [f]);
    else list.push(f);
  }
  for (const [name, list] of byRemote) {
    steps.push(remoteStep(catalog, name, list.some((f) => f.operation === 'subscription') ? 'subscription' : 'query', list));
    keys.push(...list.map((f) => f.alias));
  }
  for (const f of fields) {
    if (f.kind !== 'action') continue;
    steps.push(actionStep(f, catalog));
    keys.push(f.alias);
  }
  return { steps, needsReorder: keys.some((k, i) => k !== order[i]), order, fields };
}

/** A mutation's steps in request order: runs of database fields, runs of one remote schema's fields, each action alone. */
function mutationSteps(fields: readonly ir.OperationField[], catalog: Catalog): PlanStep[] {
  const steps: PlanStep[] = [];
  let db: ir.RootField[] = [];
  let remote: ir.RemoteRootField[] = [];
  const flush = (): void => {
    if (db.length > 0) steps.push({ kind: 'write', fields: planWrites(db, catalog) });
    const first = remote[0];
    if (first !== undefined) steps.push(remoteStep(catalog, first.remote, 'mutation', remote));
    db = [];
    remote = [];
  };
  for (const f of fields) {
    if (f.kind === 'action') {
      flush();
      steps.push(actionStep(f, catalog));
    } else if (isRemoteField(f)) {
      if (db.length > 0 || (remote[0] !== undefined && remote[0].remote !== f.remote)) flush();
      remote.push(f);
    } else {
      if (remote.length > 0) flush();
      db.push(f);
    }
  }
  flush();
  return steps;
}

function remoteStep(catalog: Catalog, name: string, operation: RemoteStep['operation'], fields: readonly ir.RemoteRootField[]): RemoteStep {
  return { kind: 'remote', operation, body: planRemoteRequest(remoteOf(catalog, name), operation, fields) };
}

/** The response keys of the local steps of `local`, in the order planLocal splices them. */
function localKeys(local: readonly ir.RootField[]): string[] {
  const statics = local.filter((f) => f.kind === 'static').map((f) => f.alias);
  if (statics.length === local.length) return statics;
  const sources: string[] = [];
  const bySource = new Map<string, string[]>();
  for (const f of local) {
    if (f.kind === 'static' || f.kind === 'mutation') continue;
    let list = bySource.get(f.source);
    if (list === undefined) {
      list = [];
      bySource.set(f.source, list);
      sources.push(f.source);
    }
    list.push(f.alias);
  }
  // Statics ride in the first statement, in query order among its fields.
  const first = sources[0] ?? '';
  const firstKeys = local.filter((f) => f.kind === 'static' || (f.kind !== 'mutation' && f.source === first)).map((f) => f.alias);
  return [...firstKeys, ...sources.slice(1).flatMap((s) => bySource.get(s) ?? [])];
}

function remoteOf(catalog: Catalog, name: string): RemoteSchemaInfo {
  const remote = catalog.remoteSchemas?.get(name);
  if (remote === undefined) throw new EngineError(ErrorCode.Unexpected, `remote schema "${name}" is not available`);
  return remote;
}
/** The plan of database (and static) root fields. */
function planLocal(fields: readonly ir.RootField[], catalog: Catalog, order: readonly string[]): Plan {
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
    steps.push({ kind: 'read', source: name, connection: source.connection, sql: backendFor(source.kind).compile.query(mine, source.target) });
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
