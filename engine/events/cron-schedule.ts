/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week,
 * UTC) as event-trigger `cleanup_config.schedule` uses them: `*`, numbers,
 * lists, ranges and steps (`*\/15`, `1-5`, `0,30`). Day-of-week 0 and 7 are
 * Sunday. As in cron, when both day fields are restricted either may match.
 */

/** A parsed schedule: the allowed values of each field. */
export interface CronSchedule {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly weekdays: ReadonlySet<number>;
  readonly daysRestricted: boolean;
  readonly weekdaysRestricted: boolean;
}

function field(text: string, min: number, max: number): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range = '', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    let lo: number;
    let hi: number;
    if (range === '*') {
      lo = min;
      hi = max;
    } else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      lo = Number(a);
      hi = Number(b);
    } else {
      lo = Number(range);
      hi = stepText === undefined ? lo : max;
    }
    if (![lo, hi, step].every(Number.isInteger) || step < 1 || lo < min || hi > max || lo > hi) throw new Error(`"${part}" is not valid here (${min}-${max})`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** Parses a schedule; throws an Error saying what is wrong. */
export function parseCronSchedule(text: string): CronSchedule {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error('a cron schedule has five fields: minute hour day-of-month month day-of-week');
  const [m = '', h = '', dom = '', mon = '', dow = ''] = parts;
  const weekdays = field(dow, 0, 7);
  if (weekdays.has(7)) weekdays.add(0);
  return {
    minutes: field(m, 0, 59),
    hours: field(h, 0, 23),
    days: field(dom, 1, 31),
    months: field(mon, 1, 12),
    weekdays,
    daysRestricted: dom !== '*',
    weekdaysRestricted: dow !== '*',
  };
}

/** Whether the schedule fires in the UTC minute of `at`. */
export function cronMatches(s: CronSchedule, at: Date): boolean {
  if (!s.minutes.has(at.getUTCMinutes()) || !s.hours.has(at.getUTCHours()) || !s.months.has(at.getUTCMonth() + 1)) return false;
  const day = s.days.has(at.getUTCDate());
  const weekday = s.weekdays.has(at.getUTCDay());
  if (s.daysRestricted && s.weekdaysRestricted) return day || weekday;
  return day && weekday;
}
