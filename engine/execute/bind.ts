/**
 * The `bind` request step: every step of a plan bound for one request
 * (statements by bind-statement.ts, writes by mutation-plan.ts, remote
 * queries by remote-step.ts).
 */
import type { BoundStatement } from '../backends/backend.ts';
import type { Session } from '../auth/session.ts';
import { bindStatement, docValue } from './bind-statement.ts';
import { bindWrites, type BoundTransaction } from './mutation-plan.ts';
import type { ActionStep, Plan, PlanStep, ReadStep, RemoteStep, StaticStep, WriteStep } from './plan.ts';
import { bindRemote, type BoundRemote } from './remote-step.ts';

/** An action step bound for one request: its arguments' variables filled (execute/action-step.ts runs it). */
export interface BoundActionStep {
  readonly kind: 'action';
  readonly step: ActionStep;
  readonly input: unknown;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly session: Session;
}

/** A plan step bound for one request. */
export type BoundStep =
  | {
      readonly kind: 'read';
      readonly step: ReadStep;
      readonly statement: BoundStatement;
      /** For the step's remote joins (Note [Remote joins] in remote-join.ts). */
      readonly request?: { readonly variables: Readonly<Record<string, unknown>>; readonly session: Session };
    }
  | {
      readonly kind: 'write';
      readonly step: WriteStep;
      readonly transactions: readonly BoundTransaction[];
      /** For the step's joins (remote relationships under `returning`). */
      readonly request?: { readonly variables: Readonly<Record<string, unknown>>; readonly session: Session };
    }
  | { readonly kind: 'static'; readonly step: StaticStep }
  | {
      readonly kind: 'remote';
      readonly step: RemoteStep;
      readonly bound: BoundRemote;
      /** For the step's joins. */
      readonly request?: { readonly variables: Readonly<Record<string, unknown>>; readonly session: Session };
    }
  | BoundActionStep;

/** A plan's steps with every parameter slot filled, in plan order: what `run` takes. */
export type BoundPlan = readonly BoundStep[];

/** The `bind` request step: fills every step's parameter slots from the variables and session (Note [Request steps]). */
export function bindPlan(plan: Plan, variables: Readonly<Record<string, unknown>>, session: Session): BoundPlan {
  const steps: BoundStep[] = [];
  const planned = plan.steps;
  for (let i = 0; i < planned.length; i++) {
    const step = planned[i] as PlanStep;
    switch (step.kind) {
      case 'read':
        steps.push(
          step.joins === undefined
            ? { kind: 'read', step, statement: bindStatement(step.sql, variables, session) }
            : { kind: 'read', step, statement: bindStatement(step.sql, variables, session), request: { variables, session } },
        );
        break;
      case 'write':
        steps.push(
          step.joins === undefined
            ? { kind: 'write', step, transactions: bindWrites(step.fields, variables, session) }
            : { kind: 'write', step, transactions: bindWrites(step.fields, variables, session), request: { variables, session } },
        );
        break;
      case 'static':
        steps.push({ kind: 'static', step });
        break;
      case 'remote':
        steps.push(
          step.joins === undefined
            ? { kind: 'remote', step, bound: bindRemote(step.body, variables, session) }
            : { kind: 'remote', step, bound: bindRemote(step.body, variables, session), request: { variables, session } },
        );
        break;
      case 'action':
        steps.push({ kind: 'action', step, input: docValue(step.field.input, variables, session), variables, session });
        break;
    }
  }
  return steps;
}
