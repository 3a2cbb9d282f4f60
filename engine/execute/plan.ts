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
 *   (remote-step.ts), run side by side with the reads of a query; in a
 *   mutation, runs of fields of one remote or of the databases become steps
 *   run in request order (`sequential`).
 * Every step may carry `joins` (StepJoin): work to run on its result and
 * splice into it. The kinds of the next issues slot in here without touching
 * the request steps around them: `action` (a webhook call) is a new
 * member whose result is JSON text like a read's or a remote's, joined into
 * `data` the same way; remote relationships are `joins` of a read step, whose
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
import { backendFor } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { planWrites, type PlannedMutationField } from './mutation-plan.ts';
import { isMutationField, isRemoteField } from '../ir/root.ts';
import type { RemoteSchemaInfo } from '../remote/types.ts';
import { planRemoteRequest, type RemoteStepBody } from './remote-step.ts';
import type { StepJoin } from './remote-join.ts';

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
  readonly body: RemoteStepBody;
}

/** A step of a plan (Note [Plan steps]). */
export type PlanStep = ReadStep | WriteStep | StaticStep | RemoteStep;

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
  readonly fields: readonly ir.RootField[];
  /** Run the steps one after another (a mutation with remote fields), not side by side. */
  readonly sequential?: boolean;
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

/** Builds the plan of `fields` against `catalog`, with the remote relationships `joins` on the reads that hold them. */
export function buildPlan(fields: readonly ir.RootField[], catalog: Catalog, joins: readonly ir.RemoteJoin[] = []): Plan {
  const plan = buildSteps(fields, catalog);
  return joins.length === 0 ? plan : attachJoins(plan, fields, catalog, joins);
}

/** Gives each read step the remote relationships under its root fields, one StepJoin per remote schema (Note [Remote joins]). */
function attachJoins(plan: Plan, fields: readonly ir.RootField[], catalog: Catalog, joins: readonly ir.RemoteJoin[]): Plan {
  const sourceOf = new Map<string, string>();
  for (const f of fields) if (f.kind === 'select' || f.kind === 'aggregate' || f.kind === 'namespace') sourceOf.set(f.alias, f.source);
  const steps = plan.steps.map((step) => {
    if (step.kind !== 'read') return step;
    const mine = joins.filter((j) => sourceOf.get(j.path[0] ?? '') === step.source);
    if (mine.length === 0) return step;
    const byRemote = new Map<string, ir.RemoteJoin[]>();
    for (const j of mine) byRemote.set(j.remote, [...(byRemote.get(j.remote) ?? []), j]);
    return { ...step, joins: [...byRemote].map(([name, list]) => ({ remote: remoteOf(catalog, name), joins: list })) };
  });
  if (steps.every((s, i) => s === plan.steps[i])) {
    throw new EngineError(ErrorCode.NotSupported, 'remote relationships are served in query results only', { path: '$' });
  }
  return { ...plan, steps };
}

function buildSteps(fields: readonly ir.RootField[], catalog: Catalog): Plan {
  const order = fields.map((f) => f.alias);
  if (!fields.some(isRemoteField)) return planLocal(fields, catalog, order);
  if (fields.some((f) => isMutationField(f) || (isRemoteField(f) && f.operation === 'mutation'))) return planMutationWithRemotes(fields, catalog, order);
  // A query: the database fields as without remotes, then one remote step per remote schema, all run side by side.
  const local = fields.filter((f) => !isRemoteField(f));
  const byRemote = new Map<string, ir.RemoteRootField[]>();
  for (const f of fields) {
    if (!isRemoteField(f)) continue;
    const list = byRemote.get(f.remote);
    if (list === undefined) byRemote.set(f.remote, [f]);
    else list.push(f);
  }
  const steps: PlanStep[] = local.length === 0 ? [] : [...planLocal(local, catalog, local.map((f) => f.alias)).steps];
  const keys: string[] = local.length === 0 ? [] : localKeys(local);
  for (const [name, list] of byRemote) {
    steps.push({ kind: 'remote', body: planRemoteRequest(remoteOf(catalog, name), 'query', list) });
    keys.push(...list.map((f) => f.alias));
  }
  return { steps, needsReorder: keys.some((k, i) => k !== order[i]), order, fields };
}

/** The response keys of the local steps of `local`, in the order planLocal splices them. */
function localKeys(local: readonly ir.RootField[]): string[] {
  const statics = local.filter((f) => f.kind === 'static').map((f) => f.alias);
  if (statics.length === local.length) return statics;
  const sources: string[] = [];
  const bySource = new Map<string, string[]>();
  for (const f of local) {
    if (f.kind === 'static' || f.kind === 'mutation' || isRemoteField(f)) continue;
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
  const firstKeys = local.filter((f) => f.kind === 'static' || (f.kind !== 'mutation' && !isRemoteField(f) && f.source === first)).map((f) => f.alias);
  return [...firstKeys, ...sources.slice(1).flatMap((s) => bySource.get(s) ?? [])];
}

function remoteOf(catalog: Catalog, name: string): RemoteSchemaInfo {
  const remote = catalog.remoteSchemas?.get(name);
  if (remote === undefined) throw new EngineError(ErrorCode.Unexpected, `remote schema "${name}" is not available`);
  return remote;
}

/**
 * A mutation with remote fields: runs of consecutive fields of one remote
 * schema are one remote request, runs of database fields one write step, and
 * the steps run one after another, in request order (v2 runs the root fields
 * of a mutation in order).
 */
function planMutationWithRemotes(fields: readonly ir.RootField[], catalog: Catalog, order: readonly string[]): Plan {
  const steps: PlanStep[] = [];
  let run: ir.RootField[] = [];
  const flush = (): void => {
    if (run.length === 0) return;
    const first = run[0] as ir.RootField;
    if (isRemoteField(first)) {
      steps.push({ kind: 'remote', body: planRemoteRequest(remoteOf(catalog, first.remote), 'mutation', run as ir.RemoteRootField[]) });
    } else {
      steps.push({ kind: 'write', fields: planWrites(run, catalog) });
    }
    run = [];
  };
  for (const f of fields) {
    const prev = run[0];
    const sameRun = prev !== undefined && (isRemoteField(prev) ? isRemoteField(f) && f.remote === prev.remote : !isRemoteField(f));
    if (!sameRun) flush();
    run.push(f);
  }
  flush();
  return { steps, needsReorder: false, order, fields, sequential: true };
}

/** Builds the plan of database and static fields (no remote ones). */
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
    if (f.kind === 'mutation' || isRemoteField(f)) continue;
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
    const mine = i === 0 ? fields.filter((f): f is ir.QueryRootField => f.kind === 'static' || (f.kind !== 'mutation' && !isRemoteField(f) && own.includes(f))) : own;
    steps.push({ kind: 'read', source: name, connection: source.connection, sql: backendFor(source.kind).compile.query(mine) });
  });
  let needsReorder = false;
  if (steps.length > 1) {
    const spliced = steps.flatMap((_, i) => {
      const own = bySource.get(sourceOrder[i] ?? '') ?? [];
      return i === 0 ? fields.filter((f) => f.kind === 'static' || (f.kind !== 'mutation' && !isRemoteField(f) && own.includes(f))) : own;
    });
    needsReorder = spliced.some((f, i) => f.alias !== order[i]);
  }
  return { steps, needsReorder, order, fields };
}
