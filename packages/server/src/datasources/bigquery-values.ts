import { integerFromText } from './wire-values.ts';

/** One field of a result's schema (TableFieldSchema of the REST API v2). */
export interface BigQueryField {
  name: string;
  /** INTEGER/INT64, FLOAT/FLOAT64, NUMERIC, BIGNUMERIC, BOOLEAN/BOOL, STRING, BYTES, DATE, DATETIME, TIME, TIMESTAMP, RECORD/STRUCT, ... */
  type: string;
  /** NULLABLE, REQUIRED or REPEATED. */
  mode?: string;
  fields?: BigQueryField[];
}

/** A cell of a result row as jobs.query and jobs.getQueryResults send it (TableCell): `{ v }`. */
export interface BigQueryCell {
  v: unknown;
}

/**
 * Milliseconds since the epoch of a TIMESTAMP cell, which the API sends as epoch seconds in a
 * float's text (`1.7040672001234E9`, `1704067200.5`, `-1.5E0`): read digit by digit, so that the
 * fraction is not rounded through a double; digits past the millisecond are dropped (a JavaScript
 * Date holds none), toward the earlier instant.
 */
export function epochMillis(text: string): number {
  const m = /^(-)?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return Number.NaN;
  const digits = `${m[2]}${m[3] ?? ''}`;
  const point = m[2]!.length + Number(m[4] ?? 0);
  // the digits up to the millisecond (point + 3), padded with zeros, and whether any digit follows
  const end = point + 3;
  const whole = end <= 0 ? '0' : digits.padEnd(end, '0').slice(0, end);
  const rest = end < 0 ? digits : digits.slice(Math.max(end, 0));
  const millis = Number(whole || '0');
  if (!m[1]) return millis;
  return /[1-9]/.test(rest) ? -millis - 1 : -millis;
}

/**
 * One cell converted by its field's type (the REST API's JSON sends every scalar as text, "Data
 * types" of the API reference's TableCell):
 * - INTEGER/INT64: a number where a double holds it exactly, else a bigint;
 * - FLOAT/FLOAT64: a number (`Infinity`, `-Infinity`, `NaN` as the numbers they name);
 * - NUMERIC/BIGNUMERIC: the decimal text, as PostgreSQL's numeric (the result formatter writes it);
 * - BOOLEAN: `true`/`false`; DATE a Date at that UTC midnight; DATETIME (a wall clock) a Date
 *   read as UTC, as the other engines' wall clocks; TIMESTAMP epoch seconds (above) as a Date;
 * - TIME, STRING, BYTES (base64), GEOGRAPHY, JSON, INTERVAL: the text;
 * - REPEATED: an array of its cells; RECORD/STRUCT: an object of its fields.
 */
export function bigQueryValue(value: unknown, field: BigQueryField): unknown {
  if (value === null || value === undefined) return null;
  if (field.mode === 'REPEATED')
    return (value as BigQueryCell[]).map((cell) => bigQueryValue(cell?.v, { ...field, mode: 'NULLABLE' }));
  const type = field.type.toUpperCase();
  if (type === 'RECORD' || type === 'STRUCT') {
    const cells = (value as { f?: BigQueryCell[] }).f ?? [];
    return rowOf(field.fields ?? [], cells);
  }
  const text = String(value);
  switch (type) {
    case 'INTEGER':
    case 'INT64':
      return integerFromText(text);
    case 'FLOAT':
    case 'FLOAT64':
      return Number(text);
    case 'BOOLEAN':
    case 'BOOL':
      return text === 'true';
    case 'DATE':
      return new Date(`${text}T00:00:00Z`);
    case 'DATETIME':
      return new Date(`${text.replace(' ', 'T').replace(/(\.\d{3})\d+$/, '$1')}Z`);
    case 'TIMESTAMP':
      return new Date(epochMillis(text));
    default:
      return text;
  }
}

/** A row by field name. */
export function rowOf(
  fields: readonly BigQueryField[],
  cells: readonly BigQueryCell[],
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  fields.forEach((field, i) => {
    row[field.name] = bigQueryValue(cells[i]?.v, field);
  });
  return row;
}

/** A named query parameter of the REST API (QueryParameter), `@p<n>` in the dialect's SQL. */
export interface QueryParameter {
  name: string;
  parameterType: { type: string };
  parameterValue: { value?: string };
}

/**
 * The statement's values as typed named parameters: text as STRING, integers as INT64 (a bigint
 * too), other numbers as FLOAT64, booleans as BOOL, Dates as TIMESTAMP, null as a NULL STRING
 * (no `value`). The dialect casts time values from STRING itself.
 */
export function queryParameters(params: readonly unknown[]): QueryParameter[] {
  return params.map((value, i) => {
    const name = `p${i + 1}`;
    if (value === null || value === undefined)
      return { name, parameterType: { type: 'STRING' }, parameterValue: {} };
    if (typeof value === 'boolean')
      return { name, parameterType: { type: 'BOOL' }, parameterValue: { value: String(value) } };
    if (typeof value === 'bigint')
      return { name, parameterType: { type: 'INT64' }, parameterValue: { value: value.toString() } };
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`A parameter is not a finite number: ${value}`);
      const type = Number.isSafeInteger(value) ? 'INT64' : 'FLOAT64';
      return { name, parameterType: { type }, parameterValue: { value: String(value) } };
    }
    if (value instanceof Date)
      return { name, parameterType: { type: 'TIMESTAMP' }, parameterValue: { value: value.toISOString() } };
    if (typeof value === 'string')
      return { name, parameterType: { type: 'STRING' }, parameterValue: { value } };
    throw new Error(`A parameter of type ${typeof value} cannot be sent to BigQuery`);
  });
}
