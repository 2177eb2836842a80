import type { ChartGranularity } from '../../chart.ts';

/**
 * Dates in a question: one range ("in 2024", "last quarter", "since March", "between Jan and Mar
 * 2024", "last 7 days"), or compared periods ("2023 vs 2024"), and a granularity ("by month",
 * "weekly", "over time"). Calendar units in UTC, weeks from Monday (ISO 8601, as DATE_TRUNC).
 * "last N days" is the N whole days before today; "this year" is the whole calendar year.
 */
export type Unit = ChartGranularity;

export interface Period {
  /** Inclusive; null for "before ...". */
  readonly start: Date | null;
  /** Exclusive; null for an open end. */
  readonly end: Date | null;
  readonly label: string;
  /** The calendar unit the period is exactly one of (a year, a quarter), else null. */
  readonly unit: Unit | null;
}

export interface TimeReading {
  readonly range: Period | null;
  readonly compare: readonly Period[] | null;
  readonly granularity: Unit | 'auto' | null;
  /** The question with the words read here taken out. */
  readonly rest: string;
  /** Time words read but not supported ("day of week"): reported as not understood. */
  readonly unsupported: readonly string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const YEAR = '(?:19|20)\\d\\d';
const POINT = `(?:\\d{4}-\\d{2}-\\d{2}|q[1-4](?: ${YEAR})?|${YEAR} q[1-4]|${MONTH}(?: ${YEAR})?|${YEAR})`;
/** A point that cannot be an ordinary word: a month name only with its year ("may" is a verb too). */
const DATED_POINT = `(?:\\d{4}-\\d{2}-\\d{2}|q[1-4](?: ${YEAR})?|${YEAR} q[1-4]|${MONTH} ${YEAR}|${YEAR})`;
const RELATIVE = '(?:(?:this|current|last|previous|prior) (?:day|week|month|quarter|year)|today|yesterday)';
const PERIOD = `(?:${POINT}|${RELATIVE})`;
const UNIT = '(hour|day|date|week|month|quarter|year)s?';
const ADJECTIVES: Record<string, Unit> = {
  hourly: 'hour',
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  quarterly: 'quarter',
  yearly: 'year',
  annually: 'year',
  annual: 'year',
};

const DAY = 86_400_000;

export function readTime(question: string, now: Date): TimeReading {
  let text = ` ${question} `;
  const take = (re: RegExp): RegExpExecArray | null => {
    const m = new RegExp(`(?<= )${re.source}(?= )`).exec(text);
    if (m) text = `${text.slice(0, m.index)} ${text.slice(m.index + m[0].length)}`.replace(/ {2,}/g, ' ');
    return m;
  };
  // cyclic parts of a date ("by day of week") are not truncations: say so rather than read "by day"
  const cyclic = take(
    /(?:by |per |each )?(?:hour|day|week|month|quarter) of (?:the )?(?:day|week|month|quarter|year)/,
  );
  const granularity = readGranularity(take);
  const compare = readComparison(take, now);
  const range = compare ? null : readRange(take, now);
  return { range, compare, granularity, rest: text.trim(), unsupported: cyclic ? [cyclic[0]] : [] };
}

function readGranularity(take: (re: RegExp) => RegExpExecArray | null): Unit | 'auto' | null {
  const by = take(new RegExp(`(?:by|per|each|every|for each|a|grouped by|by the) ${UNIT}`));
  if (by) return by[1] === 'date' ? 'day' : (by[1] as Unit);
  const adjective = take(/(hourly|daily|weekly|monthly|quarterly|yearly|annually|annual)/);
  if (adjective) return ADJECTIVES[adjective[1]];
  if (take(/(?:over time|trends?|timeline|time series|over the (?:years|months))/)) return 'auto';
  return null;
}

function readComparison(take: (re: RegExp) => RegExpExecArray | null, now: Date): Period[] | null {
  const m =
    take(new RegExp(`compare (${PERIOD}) (?:and|with|to|vs|versus|against) (${PERIOD})`)) ??
    take(new RegExp(`(?:in )?(${PERIOD}) (?:vs|versus|compared to|compared with|against) (${PERIOD})`));
  if (!m) return null;
  const second = period(m[2], now, null);
  const first = period(m[1], now, second?.year ?? null);
  if (!first || !second || first.period.unit === null || first.period.unit !== second.period.unit)
    return null;
  // the earlier period first, so that the change reads forward in time
  return [first.period, second.period].sort((a, b) => a.start!.getTime() - b.start!.getTime());
}

function readRange(take: (re: RegExp) => RegExpExecArray | null, now: Date): Period | null {
  const today = startOf('day', now);
  const tomorrow = new Date(today.getTime() + DAY);
  const between = take(new RegExp(`(?:between|from) (${POINT}) (?:and|to|until|through|till) (${POINT})`));
  if (between) {
    const last = period(between[2], now, null);
    const first = period(between[1], now, last?.year ?? null);
    if (first && last && first.period.start && last.period.end)
      return span(first.period.start, last.period.end);
  }
  const since = take(new RegExp(`(since|after|starting|starting from|from) (${POINT})`));
  if (since) {
    const p = period(since[2], now, null);
    if (p) {
      const start = since[1] === 'after' ? p.period.end! : p.period.start!;
      return { start, end: tomorrow, label: `since ${isoDate(start)}`, unit: null };
    }
  }
  const before = take(new RegExp(`(before|until|till|up to) (${POINT})`));
  if (before) {
    const p = period(before[2], now, null);
    if (p) {
      const end = before[1] === 'before' ? p.period.start! : p.period.end!;
      return { start: null, end, label: `before ${isoDate(end)}`, unit: null };
    }
  }
  const lastN = take(/(?:last|past|previous|prior) (\d+) (day|week|month|quarter|year)s?/);
  if (lastN) {
    const unit = lastN[2] as Unit;
    const end = startOf(unit, now);
    const start = addUnits(unit, -Number(lastN[1]), end);
    return {
      ...span(start, end),
      label: `the last ${lastN[1]} ${unit}s (${isoDate(start)} to ${isoDate(new Date(end.getTime() - DAY))})`,
    };
  }
  if (take(/(?:ytd|year to date|so far this year)/)) {
    const start = startOf('year', now);
    return { start, end: tomorrow, label: `${start.getUTCFullYear()} to date`, unit: null };
  }
  if (take(/(?:mtd|month to date|so far this month)/)) {
    const start = startOf('month', now);
    return { start, end: tomorrow, label: `${monthLabel(start)} to date`, unit: null };
  }
  const single =
    take(new RegExp(`(?:(?:in|during|for|of|on) (?:the )?)?(${RELATIVE})`)) ??
    take(new RegExp(`(?:(?:in|during|for|of|on) )?(${DATED_POINT})`)) ??
    take(new RegExp(`(?:in|during|for|of|on|since) (${MONTH})`));
  return single ? (period(single[1], now, null)?.period ?? null) : null;
}

/** One named period: a date, a month, a quarter, a year, or one relative to now. */
function period(
  text: string,
  now: Date,
  defaultYear: number | null,
): { period: Period; year: number | null } | null {
  const words = text.split(' ');
  const yearWord = words.find((w) => /^(19|20)\d\d$/.test(w));
  const year = yearWord ? Number(yearWord) : null;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (iso) {
    const start = new Date(Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3])));
    if (Number.isNaN(start.getTime()) || start.getUTCDate() !== Number(iso[3])) return null;
    return { period: unitPeriod('day', start), year: Number(iso[1]) };
  }
  const quarter = /q([1-4])/.exec(text);
  if (quarter) {
    const y = year ?? defaultYear ?? latestYear(now, (Number(quarter[1]) - 1) * 3);
    return { period: unitPeriod('quarter', new Date(Date.UTC(y, (Number(quarter[1]) - 1) * 3, 1))), year };
  }
  const month = MONTHS.findIndex((m) => words[0].startsWith(m));
  if (month >= 0 && new RegExp(`^${MONTH}$`).test(words[0])) {
    const y = year ?? defaultYear ?? latestYear(now, month);
    return { period: unitPeriod('month', new Date(Date.UTC(y, month, 1))), year };
  }
  if (year !== null && words.length === 1)
    return { period: unitPeriod('year', new Date(Date.UTC(year, 0, 1))), year };
  const relative = /^(this|current|last|previous|prior) (day|week|month|quarter|year)$/.exec(text);
  if (relative) {
    const unit = relative[2] as Unit;
    const shift = relative[1] === 'this' || relative[1] === 'current' ? 0 : -1;
    return { period: unitPeriod(unit, addUnits(unit, shift, startOf(unit, now))), year: null };
  }
  if (text === 'today') return { period: unitPeriod('day', startOf('day', now)), year: null };
  if (text === 'yesterday')
    return { period: unitPeriod('day', addUnits('day', -1, startOf('day', now))), year: null };
  return null;
}

/** "in March" without a year: the latest March that has begun. */
function latestYear(now: Date, month: number): number {
  return month <= now.getUTCMonth() ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
}

function unitPeriod(unit: Unit, start: Date): Period {
  const end = addUnits(unit, 1, start);
  return { start, end, unit, label: unitLabel(unit, start) };
}

function span(start: Date, end: Date): Period {
  return {
    start,
    end,
    unit: null,
    label: `from ${isoDate(start)} to ${isoDate(new Date(end.getTime() - DAY))}`,
  };
}

/** How a truncated time value of this unit is named in an answer. */
export function unitLabel(unit: Unit, start: Date): string {
  switch (unit) {
    case 'year':
      return String(start.getUTCFullYear());
    case 'quarter':
      return `Q${Math.floor(start.getUTCMonth() / 3) + 1} ${start.getUTCFullYear()}`;
    case 'month':
      return monthLabel(start);
    case 'week':
      return `the week of ${isoDate(start)}`;
    case 'day':
      return isoDate(start);
    case 'hour':
      return `${isoDate(start)} ${String(start.getUTCHours()).padStart(2, '0')}:00`;
  }
}

const monthLabel = (d: Date) => `${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

export const isoDate = (d: Date) => d.toISOString().slice(0, 10);

export function startOf(unit: Unit, d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (unit) {
    case 'year':
      return new Date(Date.UTC(y, 0, 1));
    case 'quarter':
      return new Date(Date.UTC(y, m - (m % 3), 1));
    case 'month':
      return new Date(Date.UTC(y, m, 1));
    case 'week': {
      const day = new Date(Date.UTC(y, m, d.getUTCDate()));
      return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY);
    }
    case 'day':
      return new Date(Date.UTC(y, m, d.getUTCDate()));
    case 'hour':
      return new Date(Date.UTC(y, m, d.getUTCDate(), d.getUTCHours()));
  }
}

export function addUnits(unit: Unit, n: number, d: Date): Date {
  switch (unit) {
    case 'year':
      return new Date(Date.UTC(d.getUTCFullYear() + n, d.getUTCMonth(), d.getUTCDate()));
    case 'quarter':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 3 * n, d.getUTCDate()));
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, d.getUTCDate()));
    case 'week':
      return new Date(d.getTime() + 7 * n * DAY);
    case 'day':
      return new Date(d.getTime() + n * DAY);
    case 'hour':
      return new Date(d.getTime() + n * 3_600_000);
  }
}

/** A granularity for "over time": about a dozen to a hundred points over the range. */
export function autoGranularity(range: Period | null): Unit {
  if (!range?.start || !range.end) return 'month';
  const days = (range.end.getTime() - range.start.getTime()) / DAY;
  if (days <= 2) return 'hour';
  if (days <= 62) return 'day';
  if (days <= 366 * 3) return 'month';
  return 'quarter';
}
