/**
 * Condition types and reasons, and the mapping from a reconcile outcome to the kstatus trio
 * Ready / Reconciling / Stalled (operator-notes.md §3.1–3.2): Flux reads them natively, the Argo CD
 * Lua check in config/ reads them, and `kubectl get` shows Ready and its reason.
 *
 * Note [Condition polarity]
 * Ready is "normal-true"; Reconciling and Stalled are "abnormal-true" and are written as False when
 * all is well, so that tools which only look for their presence see the truth. Ready is True only
 * when the last apply succeeded AND the engine lists the object as consistent.
 *
 * Note [An outage is not a stall]
 * kstatus reserves Stalled=True for "will not progress without a change": Argo CD shows it as
 * Degraded and Flux fails its health check. So Stalled is set only where a human must act (an
 * invalid spec, a conflict, metadata the engine lists inconsistent, a refused admin secret).
 * Everything the controller retries by itself (engine unreachable or rolling out, a Secret not
 * created yet, a missing dependency) is Ready=False with Reconciling=True, which Argo CD shows as
 * Progressing and Flux waits for. An unreachable engine makes Ready Unknown rather than False:
 * the metadata may well still be in force, the controller just cannot tell.
 */
import type { Condition } from '../api/v1alpha1/common.ts';

/** Condition types. */
export const ConditionType = {
  Ready: 'Ready',
  Reconciling: 'Reconciling',
  Stalled: 'Stalled',
} as const;

/** Reasons (CamelCase, machine-readable). */
export const Reason = {
  /** The declared metadata is applied and consistent. */
  Applied: 'Applied',
  /** The engine applied the metadata but lists the object as inconsistent. */
  InconsistentMetadata: 'InconsistentMetadata',
  /** A remote schema or source the engine could not reach: reloaded with backoff, or healing once it answers (a probe finding); not a stall. */
  RemoteUnavailable: 'RemoteUnavailable',
  /** The engine's metadata API could not be reached (or answered 5xx). */
  EngineUnreachable: 'EngineUnreachable',
  /** The engine refused the whole metadata (4xx other than a conflict). */
  EngineRejected: 'EngineRejected',
  /** No Engine to send the metadata to (none, several without engineRef, or a missing one). */
  EngineNotFound: 'EngineNotFound',
  /** Several Engines in the namespace and no engineRef: a human must choose (nothing is pruned meanwhile). */
  EngineAmbiguous: 'EngineAmbiguous',
  /** Resources of the namespace that applied metadata to this engine are bound to no Engine now: it is kept. */
  ResourcesNotBound: 'ResourcesNotBound',
  /** The admin secret Secret or key is missing. */
  SecretNotFound: 'SecretNotFound',
  /** The operator may not read the admin secret's Secret (401/403): a RoleBinding is missing. */
  SecretForbidden: 'SecretForbidden',
  /** The spec does not match the engine's metadata schema. */
  InvalidSpec: 'InvalidSpec',
  /** Another, older resource declares the same metadata object. */
  Conflict: 'Conflict',
  /** What this resource attaches to (a source, a tracked table) is not in the metadata. */
  DependencyMissing: 'DependencyMissing',
  /** Work in progress (first apply, spec change). */
  Progressing: 'Progressing',
  /** Finalizing a deletion. */
  Deleting: 'Deleting',
  /** The engine answered 401/403 to the admin secret: a human must fix the Secret or the engine. */
  AccessDenied: 'AccessDenied',
  /** The Engine's own Deployment is not available yet (spec.deployment). */
  EngineNotAvailable: 'EngineNotAvailable',
  /** Dry run (annotation): nothing is written; status lists what would change. */
  DryRun: 'DryRun',
} as const;

/** One of {@link Reason}. */
export type ReasonName = (typeof Reason)[keyof typeof Reason];

/** The result of reconciling one resource, before it becomes conditions. */
export interface Outcome {
  /** True when Ready. */
  readonly ready: boolean;
  /** Ready=Unknown instead of False (the state cannot be observed; see Note [An outage is not a stall]). */
  readonly unknown?: boolean;
  readonly reason: ReasonName;
  readonly message: string;
  /** True when retrying will not help without a change (kstatus Failed). */
  readonly stalled: boolean;
}

/** The outcome of an applied, consistent object. */
export function appliedOutcome(message = 'Metadata applied and consistent'): Outcome {
  return { ready: true, reason: Reason.Applied, message, stalled: false };
}

/** A not-ready outcome. */
export function failedOutcome(reason: ReasonName, message: string, stalled: boolean): Outcome {
  return { ready: false, reason, message, stalled };
}

/** A transient failure the controller retries by itself: Ready=Unknown, Reconciling=True. */
export function unknownOutcome(reason: ReasonName, message: string): Outcome {
  return { ready: false, unknown: true, reason, message, stalled: false };
}

/** Condition.message is limited to 32768 characters. */
const MAX_MESSAGE = 32_000;

function truncate(msg: string): string {
  return msg.length <= MAX_MESSAGE ? msg : `${msg.slice(0, MAX_MESSAGE)}… (truncated)`;
}

function condition(
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  generation: number | undefined,
  previous: readonly Condition[],
  now: Date,
): Condition {
  const before = previous.find((c) => c.type === type);
  // lastTransitionTime changes only when the status does (metav1.Condition contract).
  const lastTransitionTime = before !== undefined && before.status === status ? before.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const c: Condition = { type, status, reason, message: truncate(message), lastTransitionTime };
  return generation === undefined ? c : { ...c, observedGeneration: generation };
}

/** The Ready/Reconciling/Stalled conditions of an outcome. See Note [Condition polarity]. */
export function conditionsFor(outcome: Outcome, generation: number | undefined, previous: readonly Condition[], now: Date): Condition[] {
  const reconciling = !outcome.ready && !outcome.stalled;
  return [
    condition(
      ConditionType.Ready,
      outcome.ready ? 'True' : outcome.unknown === true ? 'Unknown' : 'False',
      outcome.reason,
      outcome.message,
      generation,
      previous,
      now,
    ),
    condition(
      ConditionType.Reconciling,
      reconciling ? 'True' : 'False',
      reconciling ? outcome.reason : 'Idle',
      reconciling ? outcome.message : '',
      generation,
      previous,
      now,
    ),
    condition(
      ConditionType.Stalled,
      outcome.stalled ? 'True' : 'False',
      outcome.stalled ? outcome.reason : 'Idle',
      outcome.stalled ? outcome.message : '',
      generation,
      previous,
      now,
    ),
  ];
}

/** True when two condition lists say the same, ignoring lastTransitionTime (so no write is needed). */
export function sameConditions(a: readonly Condition[] | undefined, b: readonly Condition[] | undefined): boolean {
  const key = (cs: readonly Condition[] | undefined): string =>
    JSON.stringify(
      [...(cs ?? [])]
        .map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration ?? null])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
  return key(a) === key(b);
}

/** The Ready condition of a list, if any. */
export function readyCondition(cs: readonly Condition[] | undefined): Condition | undefined {
  return cs?.find((c) => c.type === ConditionType.Ready);
}
