/**
 * Attempts to record on an event log in tests: each taken event delivered at its first try,
 * with empty request and response logs.
 */
import type { AttemptRecord } from '../../engine/backends/backend.ts';

/** `taken`'s attempts of trigger `triggerName`, each recorded as a first delivery that succeeded. */
export function deliveredAttempts(taken: ReadonlyArray<{ readonly id: string }>, triggerName: string): AttemptRecord[] {
  return taken.map((e) => ({
    eventId: e.id,
    triggerName,
    outcome: 'delivered',
    retryInMs: 0,
    status: 200,
    requestJson: '{}',
    responseJson: '{}',
    durationMs: 1,
  }));
}
