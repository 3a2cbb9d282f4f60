/**
 * Cron expressions of cron triggers: v2's five fields (minute, hour, day of
 * month, month, day of week; minute resolution, UTC), parsed by cron-parser.
 *
 * Note [Cron library]
 * The design card names node-cron, but node-cron runs callbacks in-process
 * and cannot list future fire times, which a persistent scheduler needs: fire
 * times are stored as rows before they are due (so a restart loses nothing and
 * several engines share them), and a trigger whose schedule changed must have
 * its stored times recomputed. cron-parser (well kept, typed, no runtime
 * dependency but luxon) answers "the next N times after t" and "does t match",
 * so it is used instead; no cron parsing is written here.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';

/** A valid schedule, or why not (for a 400 that says what is wrong). */
export type ParsedSchedule = { readonly ok: true; readonly expression: string } | { readonly ok: false; readonly reason: string };

/** Checks `expression` as v2 does: exactly five fields, each in range. */
export function parseSchedule(expression: string): ParsedSchedule {
  const fields = expression.trim().split(/\s+/);
  if (expression.trim() === '' || fields.length !== 5) {
    return {
      ok: false,
      reason: `a cron schedule has five fields (minute hour day-of-month month day-of-week), got ${fields.length === 1 && fields[0] === '' ? 0 : fields.length}`,
    };
  }
  try {
    CronExpressionParser.parse(fields.join(' '), { tz: 'UTC' });
    return { ok: true, expression: fields.join(' ') };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

/** Whether `schedule` fires at the minute of `at` (UTC). A schedule must have been accepted by {@link parseSchedule}. */
export function scheduleMatches(schedule: string, at: Date): boolean {
  const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  return CronExpressionParser.parse(schedule, { tz: 'UTC' }).includesDate(minute);
}

function expressionAfter(schedule: string, after: Date): CronExpression {
  return CronExpressionParser.parse(schedule, { tz: 'UTC', currentDate: after });
}

/**
 * The fire times of `schedule` strictly after `after`: at least `minCount`,
 * and every one up to `horizon` (at most `maxCount`). A schedule must have
 * been accepted by {@link parseSchedule}.
 */
export function fireTimes(schedule: string, after: Date, opts: { minCount: number; horizon: Date; maxCount: number }): Date[] {
  const e = expressionAfter(schedule, after);
  const out: Date[] = [];
  while (out.length < opts.maxCount) {
    if (!e.hasNext()) break;
    const next = e.next().toDate();
    if (out.length >= opts.minCount && next > opts.horizon) break;
    out.push(next);
  }
  return out;
}
