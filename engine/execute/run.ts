/**
 * The `run` request step: a bound plan's steps, each by its runner
 * (run-statement.ts for reads, mutation-plan.ts, remote-step.ts,
 * remote-join.ts, action-step.ts).
 */
import type { BoundStatement, RunOptions, SourceConnection } from '../backends/backend.ts';
import type { BoundPlan, BoundStep } from './bind.ts';
import { runWrites } from './mutation-plan.ts';
import { runRemote } from './remote-step.ts';
import { runJoins } from './remote-join.ts';
import { runActionStep, type ActionServices } from './action-step.ts';
import { runStatement, toDatabaseError } from './run-statement.ts';

/** `opts` without its cancellation (see runPlan). */
function withoutCancel(opts: RunOptions | undefined): RunOptions | undefined {
  return opts === undefined || opts.timeoutMs === undefined || opts.timeoutMs === null ? undefined : { timeoutMs: opts.timeoutMs };
}

/**
 * The `run` request step (Note [Request steps]): each step's result as JSON
 * object text, in plan order. A lone read that returned no row gives `null`
 * (the whole `data`); reads of several sources run side by side, and as a
 * cancellation watches one statement at a time, only the first of them is
 * cancelled with the request.
 */
export function runPlan(steps: BoundPlan, opts?: RunOptions, services: StepServices = NO_SERVICES): Promise<string[]> {
  const only = steps.length === 1 ? steps[0] : undefined;
  // The common case, one read, chains the statement's promise (Note [Request path without async frames]).
  if (only !== undefined && only.kind === 'read' && only.step.joins === undefined) return runOneRead(only.step.connection, only.statement, opts);
  return runSteps(steps, opts, services);
}

/** A lone read's text (`null` when it returned no row), its failure as runStatement words it. */
function runOneRead(conn: SourceConnection, statement: BoundStatement, opts: RunOptions | undefined): Promise<string[]> {
  let text: Promise<string | null>;
  try {
    text = conn.queryJsonText(statement, opts);
  } catch (e) {
    return Promise.reject(toDatabaseError(conn, e, statement));
  }
  return text.then(oneText, (e: unknown) => {
    throw toDatabaseError(conn, e, statement);
  });
}

const oneText = (text: string | null): string[] => [text ?? 'null'];

/**
 * A lone read's answer as a byte string (null when it returned no row), when
 * the plan is one and its backend can give one (Note [Answer bytes] in
 * backends/postgres/answer-bytes.ts); undefined otherwise: run it with runPlan.
 */
export function runAnswerByteString(steps: BoundPlan, opts?: RunOptions): Promise<string | null> | undefined {
  const only = steps.length === 1 ? steps[0] : undefined;
  if (only === undefined || only.kind !== 'read' || only.step.joins !== undefined) return undefined;
  const conn = only.step.connection;
  if (conn.queryJsonByteString === undefined) return undefined;
  const statement = only.statement;
  try {
    return conn.queryJsonByteString(statement, opts).then(undefined, (e: unknown) => {
      throw toDatabaseError(conn, e, statement);
    });
  } catch (e) {
    return Promise.reject(toDatabaseError(conn, e, statement));
  }
}

/** Every other plan: each step by its runner. */
async function runSteps(steps: BoundPlan, opts: RunOptions | undefined, services: StepServices): Promise<string[]> {
  const only = steps.length === 1 ? steps[0] : undefined;
  if (only !== undefined) return [await runStep(only, opts, 'null', services)];
  // A mutation's steps (writes, actions, remote mutations) run in request order, one after the other.
  if (steps.some(isMutationStep)) {
    const out: string[] = [];
    for (const s of steps) out.push(await runStep(s, opts, '{}', services));
    return out;
  }
  return await Promise.all(steps.map((s, i) => runStep(s, i === 0 ? opts : withoutCancel(opts), '{}', services)));
}

/** What steps need from the engine besides the databases: the action store, the client's headers (actions and remote schemas forward them). */
export type StepServices = ActionServices;

const NO_SERVICES: StepServices = {};

function isMutationStep(s: BoundStep): boolean {
  return s.kind === 'write' || (s.kind === 'action' && s.step.field.operation === 'mutation') || (s.kind === 'remote' && s.step.operation === 'mutation');
}

async function runStep(s: BoundStep, opts: RunOptions | undefined, noRow: string, services: StepServices): Promise<string> {
  switch (s.kind) {
    case 'read': {
      const text = (await runStatement(s.step.connection, s.statement, opts)) ?? noRow;
      const joins = s.step.joins;
      if (joins === undefined || joins.length === 0 || s.request === undefined || text === 'null') return text;
      return await runJoins(text, joins, s.request.variables, s.request.session, services.clientHeaders, opts);
    }
    case 'write': {
      // Joins under a mutation's results run once its transactions committed, on what they returned.
      const text = await runWrites(s.step.fields, s.transactions, opts);
      const joins = s.step.joins;
      if (joins === undefined || joins.length === 0 || s.request === undefined) return text;
      return await runJoins(text, joins, s.request.variables, s.request.session, services.clientHeaders, opts);
    }
    case 'static':
      return s.step.json;
    case 'remote': {
      const text = await runRemote(s.step.body, s.bound, services.clientHeaders);
      const joins = s.step.joins;
      if (joins === undefined || joins.length === 0 || s.request === undefined) return text;
      return await runJoins(text, joins, s.request.variables, s.request.session, services.clientHeaders, opts);
    }
    case 'action':
      return await runActionStep(s, services, opts);
  }
}
