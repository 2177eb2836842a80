import { formatTime } from '../result/format.ts';

/** Member type -> Cube's SQL API column type (Arrow type names, as Cube's `/v1/cubesql` reports them). */
export function columnType(memberType: string): string {
  switch (memberType) {
    case 'string':
      return 'Utf8';
    case 'time':
      return 'Timestamp';
    case 'boolean':
      return 'Boolean';
    case 'count':
    case 'count_distinct':
    case 'count_distinct_approx':
      return 'Int64';
    default:
      return 'Float64';
  }
}

/** Column type of a computed column, from the first non-null value the engine returned. */
export function inferColumnType(values: Iterable<unknown>): string {
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'bigint') return 'Int64';
    if (typeof v === 'number') return Number.isInteger(v) ? 'Int64' : 'Float64';
    if (typeof v === 'boolean') return 'Boolean';
    if (v instanceof Date) return 'Timestamp';
    return 'Utf8';
  }
  return 'Utf8';
}

/**
 * One value as Cube's SQL API sends it over HTTP: text (numbers as strings, so that 64-bit
 * integers and decimals survive JSON; times as `YYYY-MM-DDTHH:mm:ss.SSS`), NULL as null.
 */
export function sqlApiValue(v: unknown, columnType: string): string | null {
  if (v === null || v === undefined) return null;
  if (columnType === 'Timestamp' || v instanceof Date) return formatTime(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  if (typeof v === 'object' && !(v instanceof Date))
    return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x));
  return String(v);
}
