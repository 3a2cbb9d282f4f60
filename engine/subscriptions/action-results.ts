/**
 * Subscriptions to an asynchronous action's result (`subscription { myAction(id: …) { id created_at output errors } }`).
 *
 * Note [Action result subscriptions]
 * v2 serves these as live queries that poll the action log. Here the
 * subscription is the plan's one action step (mode `async-result`), read
 * again only when the action runtime says a result or an error of its id was
 * stored: the worker that stores it NOTIFYs the id in the same statement
 * (Note [Action result notifications] in backends/postgres/metadata-db/action-storage.ts),
 * and each engine's runtime holds one LISTEN connection for all its watchers.
 * The first read follows `listening()`, so a result stored meanwhile is not
 * missed; a lost listening connection reads every watched id again. The read
 * is the query field's own (actions/runtime.ts `result`): a session other
 * than the submitter's gets `null`, as from the query field, and nothing
 * more (reads again find the same null, which the sink drops as unchanged).
 * What it does not watch: the tables of the output's relationship fields;
 * their rows are read when the result is, not again when only they change.
 */
import type { OperationSink } from '../api/contract.ts';
import type { Session } from '../auth/session.ts';
import type { RunOptions } from '../backends/backend.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { ActionServices } from '../execute/action-step.ts';
import type { BoundActionStep } from '../execute/bind.ts';
import type { Plan } from '../execute/plan.ts';
import { bind, respond, run } from '../execute/request-steps.ts';

/** True when the plan is one asynchronous action result read (a subscription this module serves). */
export function isActionResultPlan(plan: Plan): boolean {
  const only = plan.steps.length === 1 ? plan.steps[0] : undefined;
  return only !== undefined && only.kind === 'action' && only.field.mode === 'async-result';
}

/** What one action result subscription needs. */
export interface ActionResultSubscription {
  readonly plan: Plan;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly session: Session;
  readonly runOptions: RunOptions | undefined;
  readonly services: ActionServices | undefined;
  readonly sink: OperationSink;
  /** Called after the first read succeeded (keeps the plan cached). */
  readonly remember: () => void;
}

/**
 * Starts the subscription (Note [Action result subscriptions]): sends the
 * result now and again each time its id's result is stored. A failure of
 * the first read ends it with the errors; a later one is sent as a message.
 * Returns the stop function. Throws an EngineError when the engine runs no
 * action store.
 */
export function subscribeActionResult(sub: ActionResultSubscription, errors: (e: unknown) => unknown[]): () => void {
  const runtime = sub.services?.runtime;
  if (runtime === undefined || sub.services === undefined)
    throw new EngineError(ErrorCode.NotSupported, 'asynchronous actions need the action store, which this engine does not run', { path: '$' });
  const services = sub.services;
  const bound = bind(sub.plan, sub.variables, sub.session);
  const id = ((bound[0] as BoundActionStep).input as Record<string, unknown> | null)?.['id'];
  let stopped = false;
  let first = true;
  let reading = false;
  let again = false;

  const read = async (): Promise<void> => {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        let text: string;
        try {
          text = respond(sub.plan, await run(bound, sub.runOptions, services));
        } catch (e) {
          if (stopped) return;
          if (first) {
            stopped = true;
            unwatch();
            sub.sink.error(errors(e));
            return;
          }
          text = JSON.stringify({ errors: errors(e) });
        }
        if (stopped) return;
        if (first) {
          first = false;
          sub.remember();
        }
        sub.sink.next(text);
      } while (again && !stopped);
    } finally {
      reading = false;
    }
  };

  const unwatch = runtime.watch(typeof id === 'string' ? id.toLowerCase() : JSON.stringify(id), () => void read());
  void runtime.listening().then(read);
  return () => {
    stopped = true;
    unwatch();
  };
}
