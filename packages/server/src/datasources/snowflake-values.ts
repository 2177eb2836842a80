import { integerFromText } from './wire-values.ts';

/** One column of a Snowflake result (`resultSetMetaData.rowType`). */
export interface SnowflakeColumn {
  name: string;
  /** `fixed`, `real`, `text`, `boolean`, `date`, `time`, `timestamp_ntz`, `timestamp_ltz`, `timestamp_tz`, ... */
  type: string;
  scale?: number | null;
}

/**
 * Milliseconds since the epoch of the SQL API's epoch seconds with a fraction (`1704067200.123456789`,
 * `-1.500000000`), read as text so that the fraction is not rounded through a float; the sub-millisecond
 * digits are dropped, as a JavaScript Date holds none.
 */
function epochMillis(seconds: string): number {
  const [whole = '0', fraction = ''] = seconds.split('.');
  const sign = whole.startsWith('-') ? -1 : 1;
  return Number(whole) * 1000 + sign * Number(fraction.padEnd(3, '0').slice(0, 3));
}

/**
 * One value as the SQL API's JSON (format `jsonv2`) sends it, every one as text ("Handling
 * responses", how values are returned), converted by its column's type:
 * - fixed: an integer (scale 0) as a number when it is exact in a double, else a bigint; with a
 *   scale, the decimal text, as PostgreSQL's numeric (the result formatter writes numbers as text);
 * - real: a number (`inf`, `-inf`, `NaN` as the number they name);
 * - boolean: `true`/`false`; date: days since the epoch, a Date at that UTC midnight;
 * - timestamp_ntz and timestamp_ltz: epoch seconds with a fraction, a Date (the wall clock of an
 *   NTZ is read as UTC, as the other engines' timestamps are); timestamp_tz: the same seconds
 *   (UTC) and the offset after a space, the instant as a Date;
 * - time: seconds since midnight, as `HH:MM:SS.fff`; anything else (text, variant): the text.
 */
export function snowflakeValue(value: string | null, column: SnowflakeColumn): unknown {
  if (value === null) return null;
  switch (column.type.toLowerCase()) {
    case 'fixed': {
      return (column.scale ?? 0) > 0 ? value : integerFromText(value);
    }
    case 'real':
      return value === 'inf' ? Infinity : value === '-inf' ? -Infinity : Number(value);
    case 'boolean':
      return value === 'true' || value === '1';
    case 'date':
      return new Date(Number(value) * 86_400_000);
    case 'timestamp_ntz':
    case 'timestamp_ltz':
    case 'timestamp_tz':
      return new Date(epochMillis(value.split(' ')[0]!));
    case 'time':
      return new Date(epochMillis(value)).toISOString().slice(11, 23);
    default:
      return value;
  }
}

/** A row by column name. */
export function rowOf(columns: readonly SnowflakeColumn[], values: ReadonlyArray<string | null>) {
  const row: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    row[c.name] = snowflakeValue(values[i] ?? null, c);
  });
  return row;
}
