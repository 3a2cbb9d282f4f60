/**
 * The controller's metrics carry controller-runtime's names and follow the work queue.
 */
import { describe, expect, it } from 'vitest';
import { ControllerMetrics } from '../../../controller/runtime/metrics.ts';
import { WorkQueue, DEFAULT_RATE_LIMIT, systemClock } from '../../../controller/runtime/work-queue.ts';

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no series ${series} in\n${text}`);
  return Number(line.slice(series.length + 1));
}

describe('ControllerMetrics', () => {
  it('counts queue adds, depth, retries and durations under the workqueue_* names', async () => {
    const m = new ControllerMetrics();
    const q = new WorkQueue(DEFAULT_RATE_LIMIT, systemClock, m.queue);
    q.add('engine/ns/a');
    q.add('engine/ns/b');
    q.add('engine/ns/a'); // deduplicated: not an add
    let text = await m.registry.metrics();
    expect(value(text, 'workqueue_adds_total{name="engine"}')).toBe(2);
    expect(value(text, 'workqueue_depth{name="engine"}')).toBe(2);
    const key = await q.get();
    expect(key).toBe('engine/ns/a');
    text = await m.registry.metrics();
    expect(value(text, 'workqueue_depth{name="engine"}')).toBe(1);
    expect(value(text, 'workqueue_queue_duration_seconds_count{name="engine"}')).toBe(1);
    expect(value(text, 'workqueue_longest_running_processor_seconds{name="engine"}')).toBeGreaterThanOrEqual(0);
    q.addRateLimited('engine/ns/a');
    q.done('engine/ns/a');
    q.shutDown();
    text = await m.registry.metrics();
    expect(value(text, 'workqueue_retries_total{name="engine"}')).toBe(1);
    expect(value(text, 'workqueue_work_duration_seconds_count{name="engine"}')).toBe(1);
  });

  it('records reconciles by result and the operator totals read from the reconciler', async () => {
    const m = new ControllerMetrics();
    const stats = { engineWrites: 3, statusWrites: 7, conflicts: 1, driftCorrections: 2 };
    m.bind({ stats, inconsistentByEngine: () => new Map([['engine/team-a/main', 4]]) });
    m.reconciled('requeue_after', 0.2);
    m.reconciled('error', 1.5);
    const text = await m.registry.metrics();
    expect(value(text, 'controller_runtime_reconcile_total{controller="engine",result="requeue_after"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_total{controller="engine",result="error"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_total{controller="engine",result="success"}')).toBe(0);
    expect(value(text, 'controller_runtime_reconcile_errors_total{controller="engine"}')).toBe(1);
    expect(value(text, 'controller_runtime_reconcile_time_seconds_count{controller="engine"}')).toBe(2);
    expect(value(text, 'graphql_engine_operator_engine_writes_total')).toBe(3);
    expect(value(text, 'graphql_engine_operator_drift_corrections_total')).toBe(2);
    expect(value(text, 'graphql_engine_operator_inconsistent_objects{namespace="team-a",engine="main"}')).toBe(4);
  });
});
