import { describe, expect, it } from 'vitest';
import { fireTimes, parseSchedule } from '../../../../engine/events/scheduled/cron-schedule.ts';
import { isHttpUrl } from '../../../../engine/events/scheduled/webhook-url.ts';

describe('parseSchedule', () => {
  it('accepts five fields and normalizes spacing', () => {
    expect(parseSchedule(' */5   1-3 * * MON ')).toEqual({ ok: true, expression: '*/5 1-3 * * MON' });
  });
  it.each([
    ['', /five fields/],
    ['* * * *', /got 4/],
    ['* * * * * *', /got 6/],
    ['60 * * * *', /./],
    ['* 24 * * *', /./],
    ['* * 32 * *', /./],
  ])('refuses %j', (expr, reason) => {
    const r = parseSchedule(expr);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});

describe('fireTimes', () => {
  const t0 = new Date('2026-01-01T10:00:30Z');
  it('lists times strictly after the start, in UTC', () => {
    const ts = fireTimes('*/15 * * * *', t0, { minCount: 1, horizon: new Date('2026-01-01T11:00:00Z'), maxCount: 100 });
    expect(ts.map((d) => d.toISOString())).toEqual([
      '2026-01-01T10:15:00.000Z',
      '2026-01-01T10:30:00.000Z',
      '2026-01-01T10:45:00.000Z',
      '2026-01-01T11:00:00.000Z',
    ]);
  });
  it('keeps at least minCount beyond the horizon, and at most maxCount', () => {
    expect(fireTimes('0 3 * * *', t0, { minCount: 3, horizon: t0, maxCount: 100 }).map((d) => d.toISOString())).toEqual([
      '2026-01-02T03:00:00.000Z',
      '2026-01-03T03:00:00.000Z',
      '2026-01-04T03:00:00.000Z',
    ]);
    expect(fireTimes('* * * * *', t0, { minCount: 1, horizon: new Date('2027-01-01T00:00:00Z'), maxCount: 5 })).toHaveLength(5);
  });
});

describe('webhook URLs', () => {
  it('takes only absolute http(s) URLs', () => {
    expect(isHttpUrl('http://h:1/x')).toBe(true);
    expect(isHttpUrl('https://h/x')).toBe(true);
    expect(isHttpUrl('ftp://h/x')).toBe(false);
    expect(isHttpUrl('/relative')).toBe(false);
  });
});
