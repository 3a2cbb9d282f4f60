/**
 * Subscriptions to a remote schema's subscription root fields.
 *
 * Note [Remote subscriptions]
 * A remote's subscription fields are on each role's subscription_root as
 * its query fields are on query_root (customized names, the role's
 * permission and `@preset`s: graphql/schema/remote-root-fields.ts), planned
 * by the same code into a remote step of operation `subscription`
 * (execute/remote-step.ts writes the remote document in the remote's names,
 * presets injected, session presets bound). Instead of a POST, the step is
 * served over the graphql-ws protocol (remote/ws-client.ts, Note [Remote
 * subscription transport]) with the headers a query would carry
 * (`headersFor`: configured, forwarded client headers, the session as
 * `X-Engine-*`). Each upstream event is written as a query answer would be
 * (`remoteAnswerText`: the client's aliases, `__typename`s renamed back),
 * its joins run (remote relationships of the remote's types, one request or
 * statement per level as for queries), and sent as it is, even when equal to
 * the one before (an event is not a state: no deduplication). An event with
 * errors is sent as `remote-schema-error` errors and the subscription goes
 * on; an `error` message, a failed connection or a socket closed by the
 * remote ends it with a `remote-schema-error`. One remote field per
 * subscription: graphql-js's single-root-field rule refuses anything else at
 * the root, and a remote's namespace field must select one field of it.
 * Measured with `npm run bench -- --capabilities remote-joins` (10 graphql-ws
 * clients each streaming 20,000 events of test/bench/peers/ticker-server.ts
 * as fast as it sends them; the shared two-core machine), 2026-11-24 21:22:
 * directly 46,902 events/s, through Engine 45,826 events/s, Engine's CPU
 * 8.4 ms per 1000 events (parse, splice, write again per event); the
 * remote's sending is the bound either way.
 */
import type { OperationSink } from '../api/contract.ts';
import type { Session } from '../auth/session.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { ActionServices } from '../execute/action-step.ts';
import type { Plan, RemoteStep } from '../execute/plan.ts';
import { runJoins } from '../execute/remote-join.ts';
import { headersFor, remoteAnswerText, remoteVariables } from '../execute/remote-step.ts';
import { subscribeRemote } from '../remote/ws-client.ts';

/** The plan's remote subscription step, or null when the plan is not a remote subscription. */
export function remoteSubscriptionStep(plan: Plan): RemoteStep | null {
  const step = plan.steps.find((s): s is RemoteStep => s.kind === 'remote' && s.operation === 'subscription');
  if (step === undefined) return null;
  if (plan.steps.length !== 1)
    throw new EngineError(ErrorCode.ValidationFailed, "a subscription to a remote schema's field cannot select other root fields", { path: '$' });
  if (step.body.aliases.size !== 1)
    throw new EngineError(ErrorCode.ValidationFailed, "a subscription must select exactly one field of a remote schema's subscription root", { path: '$' });
  return step;
}

/** What one remote subscription needs. */
export interface RemoteSubscription {
  readonly step: RemoteStep;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly session: Session;
  readonly services: ActionServices | undefined;
  readonly sink: OperationSink;
  /** Called once the upstream subscription was asked for (keeps the plan cached). */
  readonly remember: () => void;
}

/** Identifies what the upstream subscription sends: a subscription planned again with an equal key keeps its upstream. */
export function remoteSubscriptionKey(step: RemoteStep, variables: Readonly<Record<string, unknown>>, session: Session): string {
  const remote = step.body.remote;
  return JSON.stringify([remote.name, remote.endpoint.url, [...remote.endpoint.headers], step.body.query, remoteVariables(step.body, variables, session)]);
}

/** Starts the subscription (Note [Remote subscriptions]); answers the stop function. `errors` words an error for the client. */
export function subscribeRemoteStep(sub: RemoteSubscription, errors: (e: unknown) => unknown[]): () => void {
  const { step, session, sink } = sub;
  const remote = step.body.remote;
  const vars = remoteVariables(step.body, sub.variables, session);
  const clientHeaders = sub.services?.clientHeaders;
  const joins = step.joins ?? [];
  // Events go out in the order they came, joins or not; nothing that fails in the queue stops it or escapes it.
  let queue: Promise<void> = Promise.resolve();
  let over = false;
  const enqueue = (step: () => Promise<void> | void): void => {
    queue = queue.then(step).catch(() => undefined);
  };
  const send = (text: Promise<string>): void => {
    // Joins start at once; the catch keeps a failure from being unhandled until its turn comes.
    text.catch(() => undefined);
    enqueue(async () => {
      let out: string;
      try {
        out = await text;
      } catch (e) {
        out = JSON.stringify({ errors: errors(e) });
      }
      if (!over) sink.next(out);
    });
  };
  const stop = subscribeRemote(
    {
      url: remote.endpoint.url,
      headers: headersFor(remote, session, clientHeaders),
      query: step.body.query,
      variables: vars,
      timeoutMs: remote.endpoint.timeoutMs,
    },
    {
      next: (answer) => {
        send(
          (async () => {
            const data = remoteAnswerText(step.body, answer);
            return `{"data":${joins.length === 0 ? data : await runJoins(data, joins, sub.variables, session, clientHeaders)}}`;
          })(),
        );
      },
      error: (message, remoteErrors) => {
        const err = new EngineError(ErrorCode.RemoteSchemaError, message, { path: '$', internal: { remote_schema: remote.name, errors: remoteErrors } });
        enqueue(() => {
          if (over) return;
          over = true;
          sink.error(errors(err));
        });
      },
      complete: () => {
        enqueue(() => {
          if (over) return;
          over = true;
          sink.complete();
        });
      },
    },
  );
  sub.remember();
  return () => {
    over = true;
    stop();
  };
}
