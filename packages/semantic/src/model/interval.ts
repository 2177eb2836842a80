import type { Interval } from './types.ts';

/**
 * Intervals as Cube writes them (`1 day`, `2 weeks`, `3 months 2 days`). Quarters become months
 * and weeks become days, so every engine can read the printed form `N months N days N seconds`.
 */
const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600 };
const part = /^(-?\d+)\s*(second|minute|hour|day|week|month|quarter|year)s?$/;

export function parseInterval(text: string): Interval | null {
  const tokens = text.trim().toLowerCase().split(/\s+/);
  if (tokens.length === 0 || tokens.length % 2 !== 0) return null;
  let months = 0;
  let days = 0;
  let seconds = 0;
  for (let i = 0; i < tokens.length; i += 2) {
    const m = part.exec(`${tokens[i]} ${tokens[i + 1]}`);
    if (!m) return null;
    const n = Number(m[1]);
    const unit = m[2];
    if (unit === 'year') months += 12 * n;
    else if (unit === 'quarter') months += 3 * n;
    else if (unit === 'month') months += n;
    else if (unit === 'week') days += 7 * n;
    else if (unit === 'day') days += n;
    else seconds += UNIT_SECONDS[unit] * n;
  }
  return Object.freeze({ text: text.trim(), months, days, seconds });
}

/** Canonical text accepted by DuckDB and PostgreSQL `INTERVAL '...'`. */
export function intervalSql(i: Interval): string {
  const parts: string[] = [];
  if (i.months) parts.push(`${i.months} months`);
  if (i.days) parts.push(`${i.days} days`);
  if (i.seconds || parts.length === 0) parts.push(`${i.seconds} seconds`);
  return parts.join(' ');
}

export const BUILT_IN_GRANULARITIES = [
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'quarter',
  'year',
] as const;
export type BuiltInGranularity = (typeof BUILT_IN_GRANULARITIES)[number];

export function isBuiltInGranularity(g: string): g is BuiltInGranularity {
  return (BUILT_IN_GRANULARITIES as readonly string[]).includes(g);
}

/**
 * Length in seconds that PostgreSQL's `EXTRACT(EPOCH FROM interval)` gives: whole years of
 * months as 365.25 days, other months as 30 days (interval_part in PostgreSQL's timestamp.c).
 * Cube's PostgreSQL dateBin divides by it, so custom granularities bucket by this length.
 */
export function intervalEpochSeconds(i: Interval): number {
  const years = Math.trunc(i.months / 12);
  const months = i.months % 12;
  return years * 365.25 * 86_400 + months * 30 * 86_400 + i.days * 86_400 + i.seconds;
}
