import type { TableContent, VegaLiteSpec } from '../../render/index.ts';

/**
 * What a widget draws when rendered without a browser: the report's own Vega-Lite spec when its
 * snapshot has one, otherwise a chart chosen from the shape of its rows (a single number, a line
 * over time, bars per category), or else the rows as the web viewer's table, so that a report
 * saved without a chart still shows its numbers in a notification rather than an empty tile.
 */

const vegaLite = 'https://vega.github.io/schema/vega-lite/v5.json';
const numeric = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const textLineHeight = 17;
/** Rows formatted for a table: never more than a tile could hold. */
const maxTableRows = 500;
/** Cube granularities as Vega-Lite time units, so that a yearly series is labelled by year. */
const timeUnits: Record<string, string> = {
  year: 'year',
  quarter: 'yearquarter',
  month: 'yearmonth',
  week: 'yearmonthdate',
  day: 'yearmonthdate',
  hour: 'yearmonthdatehours',
  minute: 'yearmonthdatehoursminutes',
};

interface Column {
  name: string;
  title: string;
  kind: 'measure' | 'time' | 'dimension';
  /** A time dimension's granularity (`year`, `month`, ...), when it has one. */
  grain?: string;
}

/** Annotation as the data API returns it (Cube's `/v1/load`), or SQL-API columns. */
export interface RowsMeta {
  annotation?: {
    measures?: Record<string, { shortTitle?: string; title?: string; type?: string; format?: string }>;
    dimensions?: Record<string, { shortTitle?: string; title?: string; type?: string }>;
    timeDimensions?: Record<string, { shortTitle?: string; title?: string; granularity?: { name?: string } }>;
  } | null;
  columns?: { name: string; column_type: string }[] | null;
}

/** The snapshot's `spec` (stored as JSON, or as JSON text) as a Vega-Lite spec, or null when there is none. */
export function storedSpec(spec: unknown): VegaLiteSpec | null {
  let value = spec;
  if (typeof value === 'string') {
    if (value.trim() === '') return null;
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const s = value as VegaLiteSpec;
  const drawable = ['mark', 'layer', 'concat', 'hconcat', 'vconcat', 'facet', 'repeat'].some((k) => k in s);
  return drawable ? s : null;
}

/**
 * The data API sends numbers as strings (Cube's wire format); a chart needs numbers. Values of
 * measures and numeric dimensions (by the annotation, or numeric SQL columns) become numbers.
 */
export function numericRows(rows: Record<string, unknown>[], meta: RowsMeta): Record<string, unknown>[] {
  const numericFields = new Set<string>();
  const a = meta.annotation;
  if (a) {
    for (const name of Object.keys(a.measures ?? {})) numericFields.add(name);
    for (const [name, d] of Object.entries(a.dimensions ?? {}))
      if (d.type === 'number') numericFields.add(name);
  }
  for (const c of meta.columns ?? [])
    if (/^(number|int|integer|bigint|float|double|decimal|numeric|real)/i.test(c.column_type))
      numericFields.add(c.name);
  if (numericFields.size === 0) return rows;
  return rows.map((row) => {
    const out: Record<string, unknown> = { ...row };
    for (const field of numericFields) {
      const v = out[field];
      if (typeof v === 'string' && numeric.test(v.trim())) out[field] = Number(v);
    }
    return out;
  });
}

/** A chart for rows that came without one, or null when they are drawn as a table. */
export function defaultSpec(rows: Record<string, unknown>[], meta: RowsMeta): VegaLiteSpec | null {
  const columns = describeColumns(rows, meta);
  const measures = columns.filter((c) => c.kind === 'measure');
  const times = columns.filter((c) => c.kind === 'time');
  const dimensions = columns.filter((c) => c.kind === 'dimension');
  const [measure] = measures;
  if (
    measure &&
    rows.length === 1 &&
    times.length === 0 &&
    dimensions.length === 0 &&
    measures.length === 1
  ) {
    return {
      $schema: vegaLite,
      mark: { type: 'text', fontSize: 36, fontWeight: 600 },
      encoding: { text: { field: escapeField(measure.name), type: 'quantitative', format: ',' } },
    };
  }
  if (measure && times.length > 0 && dimensions.length === 0) {
    return {
      $schema: vegaLite,
      mark: { type: 'line', point: rows.length <= 40 },
      encoding: {
        x: {
          field: escapeField(times[0].name),
          type: 'temporal',
          title: times[0].title,
          ...(times[0].grain && timeUnits[times[0].grain]
            ? { timeUnit: timeUnits[times[0].grain], axis: { tickCount: tickInterval(times[0].grain) } }
            : {}),
        },
        y: { field: escapeField(measure.name), type: 'quantitative', title: measure.title },
      },
    };
  }
  if (measure && dimensions.length > 0) {
    return {
      $schema: vegaLite,
      mark: { type: 'bar', cornerRadiusTopLeft: 2, cornerRadiusTopRight: 2 },
      encoding: {
        x: {
          field: escapeField(dimensions[0].name),
          type: 'nominal',
          title: dimensions[0].title,
          sort: null,
          axis: { labelAngle: 0, labelLimit: 120 },
        },
        y: { field: escapeField(measure.name), type: 'quantitative', title: measure.title },
      },
    };
  }
  return null;
}

/**
 * A text widget's lines drawn as lines of text from the top of the tile: `y` in pixels
 * (`scale: null`), so that one line sits at the top rather than in the middle of a band.
 */
export function textSpec(): VegaLiteSpec {
  return {
    $schema: vegaLite,
    transform: [{ calculate: `datum.line * ${textLineHeight} + 2`, as: 'y' }],
    mark: { type: 'text', align: 'left', baseline: 'top', fontSize: 12, limit: 2000 },
    encoding: {
      y: { field: 'y', type: 'quantitative', scale: null, axis: null },
      x: { value: 0 },
      text: { field: 'text' },
    },
  };
}

/** A report's column formats (`preferences.columnFormats`), as the web viewer reads them. */
export type ColumnFormats = Record<string, { type?: string; decimalPlaces?: number } | undefined>;

/**
 * The rows as the web viewer's table (web/src/dashboard/rows.ts `toTable` and `formatValue`):
 * the members' short titles as headings, a time grain's duplicate column left out, and each value
 * formatted as the viewer formats it (the report's column format, else the data API's, times as
 * `YYYY-MM-DD HH:mm`), so that the image reads as the page does.
 */
export function tableOf(
  rows: Record<string, unknown>[],
  meta: RowsMeta,
  formats: ColumnFormats,
): TableContent {
  const columns = describeColumns(rows, meta);
  return {
    columns: columns.map((c) => ({ title: c.title, numeric: isNumeric(c, rows) })),
    rows: rows
      .slice(0, maxTableRows)
      .map((row) => columns.map((c) => formatValue(row[c.name], c, formats, meta))),
  };
}

function isNumeric(c: Column, rows: Record<string, unknown>[]): boolean {
  return c.kind === 'measure' || rows.some((r) => typeof r[c.name] === 'number');
}

/** A value as a person reads it, as the web viewer's `formatValue` writes it. */
function formatValue(value: unknown, column: Column, formats: ColumnFormats, meta: RowsMeta): string {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'object') return JSON.stringify(value);
  if (column.kind === 'time' && typeof value === 'string') return formatTime(value);
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return '–';
  const chosen = formats[column.name] ?? formats[column.name.replace(/\.[a-z]+$/, '')];
  const apiFormat = meta.annotation?.measures?.[column.name]?.format;
  const type = chosen?.type ?? (apiFormat === 'currency' || apiFormat === 'percent' ? apiFormat : null);
  const places = chosen?.decimalPlaces ?? undefined;
  if (type === 'currency')
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: places ?? 2,
      maximumFractionDigits: places ?? 2,
    }).format(value);
  if (type === 'percent')
    return new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: places ?? 1 }).format(
      value,
    );
  if (column.name.endsWith('.id')) return String(value);
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

/** A text widget's text as lines. */
export function linesOf(text: string): { line: number; text: string }[] {
  return text
    .split(/\r?\n/)
    .slice(0, 60)
    .map((t, i) => ({ line: i, text: t.trim() === '' ? ' ' : t }));
}

function describeColumns(rows: Record<string, unknown>[], meta: RowsMeta): Column[] {
  const a = meta.annotation;
  const names = Object.keys(rows[0] ?? {});
  return names
    .filter((name) => !(a && isBaseOfGrain(name, a)))
    .map((name) => {
      if (a?.measures?.[name])
        return { name, title: titleOf(a.measures[name], name), kind: 'measure' as const };
      if (a?.timeDimensions?.[name])
        return { name, title: titleOf(a.timeDimensions[name], name), kind: 'time' as const };
      if (a?.dimensions?.[name]) {
        const d = a.dimensions[name];
        return {
          name,
          title: titleOf(d, name),
          kind: d.type === 'time' ? ('time' as const) : ('dimension' as const),
        };
      }
      const values = rows.map((r) => r[name]).filter((v) => v !== null && v !== undefined);
      const allNumbers = values.length > 0 && values.every((v) => typeof v === 'number');
      return { name, title: name, kind: allNumbers ? ('measure' as const) : ('dimension' as const) };
    });
}

/**
 * A time dimension with a granularity comes back twice (`orders.created_at.month` and
 * `orders.created_at`): the plain one is dropped where the grained one is there.
 */
function isBaseOfGrain(name: string, a: NonNullable<RowsMeta['annotation']>): boolean {
  return Object.entries(a.timeDimensions ?? {}).some(
    ([t, m]) => t.startsWith(`${name}.`) && m.granularity?.name !== undefined,
  );
}

/** Vega's tick intervals have no quarter: three months. */
function tickInterval(grain: string) {
  return grain === 'quarter' ? { interval: 'month', step: 3 } : { interval: grain, step: 1 };
}

function titleOf(m: { shortTitle?: string; title?: string }, name: string): string {
  return m.shortTitle ?? m.title ?? name;
}

/** Vega reads dots in a field name as nested access; member names are `cube.member`. */
function escapeField(field: string): string {
  return field.replace(/\./g, '\\.');
}
