import { describe, expect, it } from 'vitest';
import { parseSchedule, scheduleMatches } from '../../../engine/events/scheduled/cron-schedule.ts';

function parseCronSchedule(text: string): string {
  const p = parseSchedule(text);
  if (!p.ok) throw new Error(p.reason);
  return p.expression;
}
const cronMatches = scheduleMatches;
import { parseRetryAfter } from '../../../engine/events/webhook-client.ts';

describe('cron schedules of cleanup_config', () => {
  const at = (iso: string): Date => new Date(iso);
  it('matches steps, lists, ranges and weekdays in UTC', () => {
    expect(cronMatches(parseCronSchedule('*/15 * * * *'), at('2026-11-24T10:30:00Z'))).toBe(true);
    expect(cronMatches(parseCronSchedule('*/15 * * * *'), at('2026-11-24T10:31:00Z'))).toBe(false);
    expect(cronMatches(parseCronSchedule('0 2,14 * * *'), at('2026-11-24T14:00:00Z'))).toBe(true);
    expect(cronMatches(parseCronSchedule('0 0 * * 1-5'), at('2026-11-22T00:00:00Z'))).toBe(false); // a Sunday
    expect(cronMatches(parseCronSchedule('0 0 * * 7'), at('2026-11-22T00:00:00Z'))).toBe(true);
    // Both day fields restricted: either matches (cron's rule).
    expect(cronMatches(parseCronSchedule('0 0 1 * 0'), at('2026-11-22T00:00:00Z'))).toBe(true);
  });
  it('refuses what is not a schedule', () => {
    for (const bad of ['* * * *', '61 * * * *', '*/0 * * * *', 'a * * * *', '5-1 * * * *']) expect(() => parseCronSchedule(bad)).toThrow();
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(30);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
});
