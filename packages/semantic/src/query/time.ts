import { UserError } from '../errors.ts';

/**
 * Wall-clock arithmetic in an IANA time zone without a date library. A "local" value is the
 * wall-clock time encoded as milliseconds since the epoch as if it were UTC, so that calendar
 * arithmetic can use the Date UTC methods; `toUtc` maps it back to an instant.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new UserError(`Unknown timezone: ${tz}`);
    }
    formatters.set(tz, f);
  }
  return f;
}

/** Throws a UserError unless `tz` is a time zone name the runtime knows (IANA database). */
export function assertTimeZone(tz: string): void {
  formatter(tz);
}

export function toLocal(instant: number, tz: string): number {
  if (tz === 'UTC' || tz === 'Etc/UTC') return instant;
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(instant)) p[part.type] = Number(part.value);
  const ms = ((instant % 1000) + 1000) % 1000;
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, ms);
}

export function toUtc(local: number, tz: string): number {
  if (tz === 'UTC' || tz === 'Etc/UTC') return local;
  let utc = local - (toLocal(local, tz) - local);
  utc = local - (toLocal(utc, tz) - utc);
  return utc;
}

/** `YYYY-MM-DDTHH:mm:ss.SSS`, Cube's time format (no zone suffix). */
export function formatLocal(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

export type TimeUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

export function startOf(local: number, unit: TimeUnit): number {
  const d = new Date(local);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (unit) {
    case 'year':
      return Date.UTC(y, 0, 1);
    case 'quarter':
      return Date.UTC(y, m - (m % 3), 1);
    case 'month':
      return Date.UTC(y, m, 1);
    case 'week': {
      // ISO weeks start on Monday, as date_trunc('week') does in DuckDB and PostgreSQL
      const day = (d.getUTCDay() + 6) % 7;
      return Date.UTC(y, m, d.getUTCDate() - day);
    }
    case 'day':
      return Date.UTC(y, m, d.getUTCDate());
    case 'hour':
      return local - (((local % 3_600_000) + 3_600_000) % 3_600_000);
    case 'minute':
      return local - (((local % 60_000) + 60_000) % 60_000);
    case 'second':
      return local - (((local % 1000) + 1000) % 1000);
  }
}

export function add(local: number, n: number, unit: TimeUnit): number {
  const d = new Date(local);
  switch (unit) {
    case 'year':
      return addMonths(d, 12 * n);
    case 'quarter':
      return addMonths(d, 3 * n);
    case 'month':
      return addMonths(d, n);
    case 'week':
      return local + 7 * n * 86_400_000;
    case 'day':
      return local + n * 86_400_000;
    case 'hour':
      return local + n * 3_600_000;
    case 'minute':
      return local + n * 60_000;
    case 'second':
      return local + n * 1000;
  }
}

/** Month arithmetic clamps the day like moment.js (Jan 31 + 1 month = Feb 29). */
function addMonths(d: Date, n: number): number {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + n;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), last);
  return Date.UTC(y, m, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

export function endOf(local: number, unit: TimeUnit): number {
  return add(startOf(local, unit), 1, unit) - 1;
}

const absolute =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses an absolute date or date-time written in the query's zone (or with an explicit
 * offset). Returns the local value and whether a time part was given.
 */
export function parseLocal(
  text: string,
  tz: string,
): { local: number; hasTime: boolean; hasMs: boolean } | null {
  const m = absolute.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac, zone] = m;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  let local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const check = new Date(local);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23)
    return null;
  if (zone) {
    const sign = zone === 'Z' ? 0 : zone[0] === '-' ? -1 : 1;
    const digits = zone.replace(/[^\d]/g, '');
    const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000;
    local = toLocal(local - offset, tz);
  }
  return { local, hasTime: m[4] !== undefined, hasMs: frac !== undefined };
}
