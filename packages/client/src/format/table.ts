/**
 * A widget's rows as a table a person reads: which columns show, their titles, and each cell
 * formatted. One module for the browser's dashboard table (packages/web) and the table drawn in a
 * notification's image (the server's renderer), so that the page and the email format a cell the
 * same way by construction rather than by two copies kept in step by hand.
 *
 * Pure functions, no imports: the server may load this file without the client's HTTP parts.
 */

export type Row = Record<string, unknown>;

/**
 * `measure`: a measure of the semantic model; `time`: a time dimension (or a dimension of type
 * time); `number`, `string`, `boolean`: other dimensions, or SQL-API columns by their type.
 */
export type ColumnKind = 'measure' | 'time' | 'number' | 'string' | 'boolean';

export interface Column {
  /** The row key: a member name (`orders.count`, `orders.created_at.month`) or a SQL column. */
  name: string;
  title: string;
  kind: ColumnKind;
  /** The data API's format of a measure (`currency`, `percent`), when it has one. */
  format?: string;
  /** A time dimension's granularity (`year`, `month`, ...), when it was asked at one. */
  grain?: string;
  /** True when the data API's annotation describes the column (false for SQL and unknown keys). */
  annotated?: boolean;
}

/** What a tile draws from: the rows with numbers as numbers, and their columns in order. */
export interface Table {
  columns: Column[];
  rows: Row[];
}

/** A report's format for one column (`preferences.columnFormats`). */
export interface CellFormat {
  type?: string | null;
  decimalPlaces?: number | null;
}
export type CellFormats = Record<string, CellFormat | null | undefined>;

/**
 * A report's `preferences.columnFormats`, from the preferences as stored (an object, or JSON
 * text), or none: one reading for the page, the XLSX download and the emailed image alike.
 */
export function columnFormatsOf(preferences: unknown): CellFormats {
  let value = preferences;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  const formats = (value as { columnFormats?: unknown } | null)?.columnFormats;
  return formats !== null && typeof formats === 'object' && !Array.isArray(formats)
    ? (formats as CellFormats)
    : {};
}

interface Annotated {
  title?: string;
  shortTitle?: string;
  type?: string;
  format?: string;
  granularity?: { name?: string } | null;
}

/** The annotation of Cube's `/v1/load` answer, or the SQL API's columns. */
export interface RowsMeta {
  annotation?: {
    measures?: Record<string, Annotated>;
    dimensions?: Record<string, Annotated>;
    timeDimensions?: Record<string, Annotated>;
  } | null;
  columns?: readonly { name: string; column_type: string }[] | null;
}

/** SQL-API column types that hold numbers (Arrow's names, as `/v1/cubesql` and the SQL widgets send). */
const numericSqlType =
  /^(u?int|integer|bigint|smallint|tinyint|hugeint|float|double|decimal|number|numeric|real)/i;
/** SQL-API column types that hold times (`Timestamp`, as `/v1/cubesql` sends a time member or a DATE_TRUNC). */
const timeSqlType = /^(timestamp|date)/i;
const numericText = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A member's heading: its short title, else its title, else its name. */
export function titleOf(
  annotated: { shortTitle?: string; title?: string } | undefined,
  name: string,
): string {
  return annotated?.shortTitle ?? annotated?.title ?? name;
}

/**
 * The columns a table shows, in the rows' key order (or the annotation's, with no rows). A time
 * dimension asked at a granularity answers two keys (`orders.created_at` and
 * `orders.created_at.month`, same value): only the one with the granularity is shown.
 */
export function describeColumns(rows: readonly Row[], meta: RowsMeta): Column[] {
  const a = meta.annotation;
  if (!a) {
    const sqlColumns = meta.columns ?? [];
    if (sqlColumns.length > 0)
      return sqlColumns.map((c) => ({
        name: c.name,
        title: c.name,
        kind: numericSqlType.test(c.column_type)
          ? 'number'
          : timeSqlType.test(c.column_type)
            ? 'time'
            : 'string',
        annotated: false,
      }));
  }
  const times = a?.timeDimensions ?? {};
  const keys = rows.length > 0 ? Object.keys(rows[0]) : a ? annotatedNames(a) : [];
  const columns: Column[] = [];
  for (const name of keys) {
    if (Object.keys(times).some((t) => t !== name && t.startsWith(`${name}.`))) continue;
    const m = a?.measures?.[name];
    const t = times[name];
    const d = a?.dimensions?.[name];
    if (m)
      columns.push({ name, title: titleOf(m, name), kind: 'measure', format: m.format, annotated: true });
    else if (t)
      columns.push({
        name,
        title: titleOf(t, name),
        kind: 'time',
        grain: t.granularity?.name,
        annotated: true,
      });
    else if (d) columns.push({ name, title: titleOf(d, name), kind: kindOf(d.type), annotated: true });
    else columns.push({ name, title: name, kind: inferKind(rows, name), annotated: false });
  }
  return columns;
}

/**
 * The rows as a table. The data API sends numbers as strings (as Cube does, so that big integers
 * survive JSON); charts, totals and number formats need numbers, so the values of numeric columns
 * that read as numbers are converted. Every key of a row is kept (a chart may use a hidden one).
 */
export function toTable(rows: readonly Row[], meta: RowsMeta): Table {
  const columns = describeColumns(rows, meta);
  const numeric = new Set(
    columns.filter((c) => c.kind === 'measure' || c.kind === 'number').map((c) => c.name),
  );
  if (numeric.size === 0) return { columns, rows: [...rows] };
  return {
    columns,
    rows: rows.map((row) => {
      const copy: Row = { ...row };
      for (const name of numeric) copy[name] = toNumber(copy[name]);
      return copy;
    }),
  };
}

/**
 * A value as a person reads it: the report's column format (by the column's name, or by the
 * member without its grain), else the data API's format of the measure, else a plain number with
 * at most two decimals. Times read `YYYY-MM-DD`, with a time of day `YYYY-MM-DD HH:mm`; a missing
 * or non-finite value reads as a dash.
 */
export function formatValue(value: unknown, column: Column, formats: CellFormats = {}): string {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'object') return JSON.stringify(value);
  if (column.kind === 'time' && typeof value === 'string') return formatTime(value, column.grain);
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return '–';
  const chosen = formats[column.name] ?? formats[column.name.replace(/\.[a-z]+$/, '')];
  const type =
    chosen?.type ?? (column.format === 'currency' || column.format === 'percent' ? column.format : null);
  const places = chosen?.decimalPlaces ?? undefined;
  if (type === 'currency') {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: places ?? 2,
      maximumFractionDigits: places ?? 2,
    }).format(value);
  }
  if (type === 'percent') {
    return new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: places ?? 1 }).format(
      value,
    );
  }
  // An identifier is a label, not a quantity: no thousands separator.
  if (column.kind === 'number' && column.name.endsWith('.id')) return String(value);
  return new Intl.NumberFormat('en-US', {
    maximumFractionDigits: places ?? 2,
    ...(places !== undefined ? { minimumFractionDigits: places } : {}),
  }).format(value);
}

const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * "2024-03-01T00:00:00.000" -> "2024-03-01"; with a time of day, "2024-03-01 14:05". A period's
 * start asked at a coarse grain reads as that period, as the charts label it (grainFormats of
 * @tessera/dashboard): "Mar 2024" for a month, "Q1 2024" for a quarter, "2024" for a year; a week
 * reads as the date it starts on.
 */
export function formatTime(value: string, grain?: string): string {
  const match = /^(\d{4}-(\d{2})-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?)?/.exec(value);
  if (!match) return value;
  const [, date, month, hm, rest] = match;
  const year = date.slice(0, 4);
  const monthIndex = Number(month) - 1;
  if (grain === 'year') return year;
  if (grain === 'quarter') return `Q${Math.floor(monthIndex / 3) + 1} ${year}`;
  if (grain === 'month') return `${monthNames[monthIndex] ?? month} ${year}`;
  if (!hm || (hm === '00:00' && (!rest || /^:00(\.0+)?$/.test(rest)))) return date;
  return `${date} ${hm}`;
}

function annotatedNames(a: NonNullable<RowsMeta['annotation']>): string[] {
  return [
    ...Object.keys(a.dimensions ?? {}),
    ...Object.keys(a.timeDimensions ?? {}),
    ...Object.keys(a.measures ?? {}),
  ];
}

function kindOf(type: string | undefined): ColumnKind {
  if (type === 'number') return 'number';
  if (type === 'time') return 'time';
  if (type === 'boolean') return 'boolean';
  return 'string';
}

/** A key the annotation does not describe: numeric when every value present reads as a number. */
function inferKind(rows: readonly Row[], name: string): ColumnKind {
  const values = rows.map((r) => r[name]).filter((v) => v !== null && v !== undefined);
  const numbers = values.length > 0 && values.every((v) => typeof v === 'number');
  return numbers ? 'number' : 'string';
}

function toNumber(value: unknown): unknown {
  if (typeof value !== 'string' || !numericText.test(value.trim())) return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}
