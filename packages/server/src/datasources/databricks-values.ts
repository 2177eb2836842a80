import { integerFromText } from './wire-values.ts';

/** One column of a statement's result (`manifest.schema.columns`). */
export interface DatabricksColumn {
  name: string;
  /** `BYTE`, `SHORT`, `INT`, `LONG`, `FLOAT`, `DOUBLE`, `DECIMAL`, `BOOLEAN`, `DATE`, `TIMESTAMP`, `TIMESTAMP_NTZ`, `STRING`, ... */
  type_name: string;
  type_scale?: number | null;
}

/**
 * Milliseconds since the epoch of a timestamp as the API writes it: ISO 8601 with `T`, or with a
 * space, with or without a zone (`2024-01-02T03:04:05.123Z`, `2024-01-02 03:04:05.123456`). A
 * value without a zone is read as UTC: the session's time zone is UTC (dialect/databricks.ts), and
 * a TIMESTAMP_NTZ holds the UTC wall clock as the other engines' timestamps do. Digits past the
 * millisecond are dropped, as a JavaScript Date holds none.
 */
function timestampMillis(text: string): number {
  const m = /^(-?\d{4,}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/.exec(
    text.trim(),
  );
  if (!m) return Number.NaN;
  const zone =
    !m[4] || m[4] === 'Z' ? 'Z' : m[4].includes(':') ? m[4] : `${m[4].slice(0, 3)}:${m[4].slice(3)}`;
  return Date.parse(`${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}${zone}`);
}

/**
 * One value as the Statement Execution API's JSON_ARRAY format sends it, every one as text or null
 * ("Statement Execution API", result formats: JSON_ARRAY), converted by its column's `type_name`:
 * - BYTE, SHORT, INT, LONG: a number when it is exact in a double, else a bigint;
 * - DECIMAL: with a scale, the decimal text, as PostgreSQL's numeric (the result formatter writes
 *   numbers as text); scale 0 as an integer above;
 * - FLOAT, DOUBLE: a number (`NaN`, `Infinity`, `-Infinity` as the number they name);
 * - BOOLEAN: `true`/`false`; DATE: a Date at that UTC midnight;
 * - TIMESTAMP, TIMESTAMP_NTZ: a Date (see timestampMillis);
 * - anything else (STRING, CHAR, BINARY, INTERVAL, ARRAY, MAP, STRUCT, VARIANT): the text.
 */
export function databricksValue(value: string | null, column: DatabricksColumn): unknown {
  if (value === null) return null;
  switch (column.type_name.toUpperCase()) {
    case 'BYTE':
    case 'SHORT':
    case 'INT':
    case 'LONG':
      return integerFromText(value);
    case 'DECIMAL':
      return (column.type_scale ?? 0) > 0 || !/^-?\d+$/.test(value) ? value : integerFromText(value);
    case 'FLOAT':
    case 'DOUBLE':
      return value === 'Infinity' ? Infinity : value === '-Infinity' ? -Infinity : Number(value);
    case 'BOOLEAN':
      return value === 'true';
    case 'DATE':
      return new Date(`${value}T00:00:00Z`);
    case 'TIMESTAMP':
    case 'TIMESTAMP_NTZ':
      return new Date(timestampMillis(value));
    default:
      return value;
  }
}

/** A row by column name. */
export function rowOf(columns: readonly DatabricksColumn[], values: ReadonlyArray<string | null>) {
  const row: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    row[c.name] = databricksValue(values[i] ?? null, c);
  });
  return row;
}
