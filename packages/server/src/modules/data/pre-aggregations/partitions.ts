import { addTime, formatLocal, startOfPeriod, type TimeUnit } from '@tessera/semantic';

/**
 * Time ranges of rollups, as UTC wall-clock milliseconds with both ends inclusive (the semantic
 * layer's LocalRange in the zone rollups are built in, UTC).
 */
export interface Range {
  from: number;
  to: number;
}

/** The period after the one starting at `start` (model validation admits built-in units only). */
const next = (start: number, unit: string) => addTime(start, 1, unit as TimeUnit);

/** The `unit` periods covering the range, each named by its start (`20240301`, `2024030114`). */
export function partitionsOf(range: Range, unit: string): (Range & { id: string })[] {
  const out: (Range & { id: string })[] = [];
  for (
    let s = startOfPeriod(range.from, unit as TimeUnit);
    s <= range.to && out.length < 10_000;
    s = next(s, unit)
  ) {
    const iso = new Date(s).toISOString();
    const id =
      iso.slice(0, 10).replace(/-/g, '') + (unit === 'hour' || unit === 'minute' ? iso.slice(11, 13) : '');
    out.push({ id, from: s, to: next(s, unit) - 1 });
  }
  return out;
}

/** `YYYY-MM-DDTHH:mm:ss.SSS` of a UTC wall-clock time, as the semantic layer writes times. */
export const formatUtc = formatLocal;

/** A time an engine returned (Date, ISO-like text, epoch ms) as UTC ms; null if none. */
export function toUtcMs(value: unknown): number | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  if (typeof value !== 'string') return null;
  const text = value.trim().replace(' ', 'T');
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || !text.includes('T') ? text : `${text}Z`);
  return Number.isNaN(ms) ? null : ms;
}

export function parseUtc(text: string | null): number | null {
  return text === null ? null : Date.parse(`${text}Z`);
}
