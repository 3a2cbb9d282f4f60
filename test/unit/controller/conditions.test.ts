import { describe, expect, it } from 'vitest';
import { Reason, appliedOutcome, conditionsFor, failedOutcome, sameConditions, unknownOutcome } from '../../../controller/runtime/conditions.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');

describe('conditionsFor', () => {
  it('writes the kstatus trio with observedGeneration', () => {
    const cs = conditionsFor(appliedOutcome(), 3, [], t0);
    expect(cs.map((c) => [c.type, c.status, c.observedGeneration])).toEqual([
      ['Ready', 'True', 3],
      ['Reconciling', 'False', 3],
      ['Stalled', 'False', 3],
    ]);
  });

  it('marks stalled failures Stalled and retrying ones Reconciling', () => {
    const stalled = conditionsFor(failedOutcome(Reason.InconsistentMetadata, 'no such column', true), 1, [], t0);
    expect(stalled.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'InconsistentMetadata', message: 'no such column' });
    expect(stalled.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'InconsistentMetadata' });
    const waiting = conditionsFor(failedOutcome(Reason.DependencyMissing, 'table t is not tracked', false), 1, [], t0);
    expect(waiting.find((c) => c.type === 'Reconciling')).toMatchObject({ status: 'True', reason: 'DependencyMissing' });
  });

  it('reports an unreachable engine as Ready=Unknown and Reconciling, never Stalled (an outage is not a stall)', () => {
    const cs = conditionsFor(unknownOutcome(Reason.EngineUnreachable, 'connect ECONNREFUSED'), 2, [], t0);
    expect(cs.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'Unknown', 'EngineUnreachable'],
      ['Reconciling', 'True', 'EngineUnreachable'],
      ['Stalled', 'False', 'Idle'],
    ]);
  });

  it('keeps lastTransitionTime while the status stays, and changes it when the status flips', () => {
    const before = conditionsFor(appliedOutcome(), 1, [], t0);
    const same = conditionsFor(appliedOutcome(), 2, before, t1);
    expect(same[0]?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    const flipped = conditionsFor(failedOutcome(Reason.EngineUnreachable, 'down', true), 2, before, t1);
    expect(flipped[0]?.lastTransitionTime).toBe('2026-01-01T00:05:00Z');
  });

  it('compares conditions without lastTransitionTime, so unchanged status is not rewritten', () => {
    const a = conditionsFor(appliedOutcome(), 1, [], t0);
    const b = conditionsFor(appliedOutcome(), 1, [], t1);
    expect(sameConditions(a, b)).toBe(true);
    expect(sameConditions(a, conditionsFor(appliedOutcome(), 2, [], t0))).toBe(false);
  });

  it('truncates messages to the Condition limit', () => {
    const cs = conditionsFor(failedOutcome(Reason.EngineRejected, 'x'.repeat(40_000), true), 1, [], t0);
    expect(cs[0]?.message.length).toBeLessThan(32_768);
  });
});
