import type { ColumnFormat, WidgetAnswer } from './types.ts';

export type Row = Record<string, unknown>;
export type ColumnKind = 'measure' | 'time' | 'number' | 'string' | 'boolean';

export interface Column {
  /** The row key: a member name (`orders.count`, `orders.created_at.month`) or a SQL column. */
  name: string;
  title: string;
  kind: ColumnKind;
  /** The data API's format of a measure (`currency`, `percent`), when it has one. */
  format?: string;
}

/** What a tile draws from: the rows with numbers as numbers, and their columns in order. */
export interface Table {
  columns: Column[];
  rows: Row[];
}

interface Annotated {
  title?: string;
  shortTitle?: string;
  type?: string;
  format?: string;
}
interface Annotation {
  measures?: Record<string, Annotated>;
  dimensions?: Record<string, Annotated>;
  timeDimensions?: Record<string, Annotated>;
}

const numericSql = /^(Int|UInt|Float|Double|Decimal|Number|Numeric)/i;

/**
 * The answer's rows as a table. The data API sends numbers as strings (as Cube does, so that
 * big integers survive JSON); charts and totals need numbers, so the columns its annotation (or,
 * for SQL, the column types) calls numeric are converted. A time dimension asked at a granularity
 * answers two keys (`orders.created_at` and `orders.created_at.month`, same value): only the one
 * with the granularity is shown.
 */
export function toTable(answer: WidgetAnswer): Table {
  const rows = answer.data;
  const columns: Column[] = [];
  if (answer.kind === 'sql') {
    for (const c of answer.columns ?? []) {
      columns.push({
        name: c.name,
        title: c.name,
        kind: numericSql.test(c.column_type) ? 'number' : 'string',
      });
    }
  } else {
    const annotation = (answer.annotation ?? {}) as Annotation;
    const keys = rows.length > 0 ? Object.keys(rows[0]) : [];
    const times = annotation.timeDimensions ?? {};
    const hidden = new Set(
      Object.keys(times).filter((t) => Object.keys(times).some((o) => o.startsWith(`${t}.`))),
    );
    const describe = (name: string): Column | null => {
      const m = annotation.measures?.[name];
      if (m) return { name, title: title(m, name), kind: 'measure', format: m.format };
      const t = times[name];
      if (t) return hidden.has(name) ? null : { name, title: title(t, name), kind: 'time' };
      const d = annotation.dimensions?.[name];
      if (d) return { name, title: title(d, name), kind: kindOf(d.type) };
      return null;
    };
    const names = keys.length > 0 ? keys : annotatedNames(annotation);
    for (const name of names) {
      const column = describe(name);
      if (column) columns.push(column);
    }
  }
  const numeric = columns.filter((c) => c.kind === 'measure' || c.kind === 'number').map((c) => c.name);
  const converted =
    numeric.length === 0
      ? rows
      : rows.map((row) => {
          const copy: Row = { ...row };
          for (const name of numeric) copy[name] = toNumber(copy[name]);
          return copy;
        });
  return { columns, rows: converted };
}

function annotatedNames(a: Annotation): string[] {
  return [
    ...Object.keys(a.dimensions ?? {}),
    ...Object.keys(a.timeDimensions ?? {}),
    ...Object.keys(a.measures ?? {}),
  ];
}

function title(a: Annotated, name: string): string {
  return a.shortTitle ?? a.title ?? name;
}

function kindOf(type: string | undefined): ColumnKind {
  if (type === 'number') return 'number';
  if (type === 'time') return 'time';
  if (type === 'boolean') return 'boolean';
  return 'string';
}

function toNumber(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

/** A value as a person reads it: the report's column format, else the data API's, else plain. */
export function formatValue(value: unknown, column: Column, formats: Record<string, ColumnFormat>): string {
  if (value === null || value === undefined) return '–';
  if (column.kind === 'time' && typeof value === 'string') return formatTime(value);
  if (typeof value !== 'number') return String(value);
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
  if (column.kind === 'number' && column.name.endsWith('.id')) return String(value);
  return new Intl.NumberFormat('en-US', {
    maximumFractionDigits: places ?? 2,
    ...(places !== undefined ? { minimumFractionDigits: places } : {}),
  }).format(value);
}

/** "2024-03-01T00:00:00.000" -> "2024-03-01"; with a time of day, "2024-03-01 14:05". */
export function formatTime(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?)?/.exec(value);
  if (!match) return value;
  const [, date, hm, rest] = match;
  if (!hm || (hm === '00:00' && (!rest || /^:00(\.0+)?$/.test(rest)))) return date;
  return `${date} ${hm}`;
}

/** One row with one measure and nothing else: drawn as a single big number. */
export function singleFigure(table: Table): Column | null {
  if (table.rows.length !== 1 || table.columns.length !== 1) return null;
  const [column] = table.columns;
  return column.kind === 'measure' || column.kind === 'number' ? column : null;
}
