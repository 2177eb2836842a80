import { UserError } from '../errors.ts';
import { add, endOf, parseLocal, startOf, type TimeUnit, toLocal } from './time.ts';

/** A date range as wall-clock bounds in the query's time zone, both inclusive. */
export interface LocalRange {
  readonly from: number;
  readonly to: number;
}

const UNIT = '(second|minute|hour|day|week|month|quarter|year)s?';
const thisLastNext = new RegExp(`^(this|last|next)\\s+${UNIT}$`);
const lastN = new RegExp(`^last\\s+(\\d+)\\s+${UNIT}$`);
const nextN = new RegExp(`^next\\s+(\\d+)\\s+${UNIT}$`);
const fromTo = /^from\s+(.+?)\s+to\s+(.+)$/;
const ago = new RegExp(`^(\\d+)\\s+${UNIT}\\s+ago$`);
const fromNow = new RegExp(`^(\\d+)\\s+${UNIT}\\s+from\\s+now$`);

/**
 * Cube's date ranges: an absolute pair, a single date, or a relative expression. The relative
 * forms follow Cube's dateParser (packages/cubejs-api-gateway/src/dateParser.js): `this|last|next
 * <unit>` are whole calendar periods, `last N <unit>` ends with the previous period, `next N
 * <unit>` starts with the next one, weeks are ISO weeks.
 */
export function parseDateRange(value: unknown, tz: string, now: number): LocalRange {
  if (typeof value === 'string') return parseRelative(value, tz, now);
  if (
    Array.isArray(value) &&
    (value.length === 1 || value.length === 2) &&
    value.every((v) => typeof v === 'string')
  ) {
    const from = bound(value[0], tz, now, 'from');
    const to = bound(value[value.length - 1], tz, now, 'to');
    if (from > to) throw new UserError(`Invalid date range: ${JSON.stringify(value)} starts after it ends`);
    return { from, to };
  }
  throw new UserError(`Invalid date range: ${JSON.stringify(value)}`);
}

/** One end of an absolute range: a date alone covers the whole day, as in Cube. */
export function bound(text: string, tz: string, now: number, side: 'from' | 'to'): number {
  const parsed = parseLocal(text, tz);
  if (parsed) {
    if (side === 'from' || parsed.hasMs) return parsed.local;
    return parsed.hasTime ? parsed.local + 999 : endOf(parsed.local, 'day');
  }
  const range = tryRelative(text.trim().toLowerCase(), tz, now);
  if (range) return side === 'from' ? range.from : range.to;
  throw new UserError(`Invalid date range: cannot parse date '${text}'`);
}

function parseRelative(text: string, tz: string, now: number): LocalRange {
  const range = tryRelative(text.trim().toLowerCase(), tz, now);
  if (!range)
    throw new UserError(`Invalid date range: '${text}' is not a date or a relative range Cube understands`);
  return range;
}

function tryRelative(text: string, tz: string, now: number): LocalRange | null {
  const local = toLocal(now, tz);
  const day = (offset: number) => ({
    from: startOf(add(local, offset, 'day'), 'day'),
    to: endOf(add(local, offset, 'day'), 'day'),
  });
  if (text === 'today') return day(0);
  if (text === 'yesterday') return day(-1);
  if (text === 'tomorrow') return day(1);
  const absolute = parseLocal(text, tz);
  if (absolute) {
    return absolute.hasTime
      ? { from: absolute.local, to: absolute.local }
      : { from: absolute.local, to: endOf(absolute.local, 'day') };
  }
  let m = thisLastNext.exec(text);
  if (m) {
    const unit = m[2] as TimeUnit;
    const shift = m[1] === 'last' ? -1 : m[1] === 'next' ? 1 : 0;
    const at = add(local, shift, unit);
    return { from: startOf(at, unit), to: endOf(at, unit) };
  }
  m = lastN.exec(text);
  if (m) {
    const unit = m[2] as TimeUnit;
    return { from: add(startOf(local, unit), -Number(m[1]), unit), to: endOf(add(local, -1, unit), unit) };
  }
  m = nextN.exec(text);
  if (m) {
    const unit = m[2] as TimeUnit;
    return { from: startOf(add(local, 1, unit), unit), to: endOf(add(local, Number(m[1]), unit), unit) };
  }
  m = fromTo.exec(text);
  if (m) {
    const from = point(m[1], local, tz, 'from');
    const to = point(m[2], local, tz, 'to');
    if (from === null || to === null || from > to) return null;
    return { from, to };
  }
  return null;
}

/** One side of `from X to Y`: `now`, `today`, `N days ago`, `N days from now` or a date. */
function point(text: string, local: number, tz: string, side: 'from' | 'to'): number | null {
  const t = text.trim();
  if (t === 'now') return local;
  const edge = (v: number, unit: TimeUnit) => {
    if (unit === 'hour' || unit === 'minute' || unit === 'second') return v;
    return side === 'from' ? startOf(v, 'day') : endOf(v, 'day');
  };
  if (t === 'today') return edge(local, 'day');
  if (t === 'yesterday') return edge(add(local, -1, 'day'), 'day');
  if (t === 'tomorrow') return edge(add(local, 1, 'day'), 'day');
  let m = ago.exec(t);
  if (m) return edge(add(local, -Number(m[1]), m[2] as TimeUnit), m[2] as TimeUnit);
  m = fromNow.exec(t);
  if (m) return edge(add(local, Number(m[1]), m[2] as TimeUnit), m[2] as TimeUnit);
  const abs = parseLocal(t, tz);
  if (!abs) return null;
  return side === 'to' && !abs.hasTime ? endOf(abs.local, 'day') : abs.local;
}
