/**
 * Which chart suits a result, and its Vega-Lite spec: a pure function of the result's columns.
 * The spec names columns by their row keys (dots and all) and holds no data; chart-spec.ts
 * (the dashboard's, shared) escapes the names, labels time at its grain and puts the rows in.
 */
import { type Column, type ColumnFormats, isNumeric, type Table } from './table.ts';

export const chartKinds = [
  'number',
  'line',
  'bar',
  'grouped-bar',
  'stacked-bar',
  'area',
  'pie',
  'scatter',
  'table',
] as const;
export type ChartKind = (typeof chartKinds)[number];

export const chartKindLabels: Record<ChartKind, string> = {
  number: 'Number',
  line: 'Line',
  bar: 'Bar',
  'grouped-bar': 'Grouped bar',
  'stacked-bar': 'Stacked bar',
  area: 'Area',
  pie: 'Pie',
  scatter: 'Scatter',
  table: 'Table',
};

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

interface Roles {
  time: Column | null;
  categories: Column[];
  measures: Column[];
}

function rolesOf(table: Table): Roles {
  const time = table.columns.find((c) => c.kind === 'time') ?? null;
  const measures = table.columns.filter((c) => c.kind === 'measure');
  // SQL results have no measures: their numeric columns stand in, the others are categories.
  const quantities = measures.length > 0 ? measures : table.columns.filter(isNumeric);
  const categories = table.columns.filter((c) => c !== time && !quantities.includes(c));
  return { time, categories, measures: quantities };
}

/** The kinds that can draw this result (always `table`). */
export function chartKindsFor(table: Table): ChartKind[] {
  const { time, categories, measures } = rolesOf(table);
  const kinds: ChartKind[] = [];
  const m = measures.length;
  const c = categories.length;
  if (m > 0 && table.rows.length === 1 && !time && c === 0) kinds.push('number');
  if (time && m > 0) kinds.push('line', 'area', 'bar');
  if (time && m > 0 && (c > 0 || m > 1)) kinds.push('grouped-bar', 'stacked-bar');
  if (!time && c > 0 && m > 0) {
    kinds.push('bar');
    if (m > 1 || c > 1) kinds.push('grouped-bar', 'stacked-bar');
    if (m === 1) kinds.push('pie');
    kinds.push('line');
  }
  if (m >= 2) kinds.push('scatter');
  kinds.push('table');
  return [...new Set(kinds)];
}

/** The chart a result is drawn as until someone picks another. */
export function chooseChart(table: Table): ChartKind {
  if (table.rows.length === 0) return 'table';
  const { time, categories, measures } = rolesOf(table);
  if (measures.length === 0) return 'table';
  if (!time && categories.length === 0) return table.rows.length === 1 ? 'number' : 'table';
  if (time) return categories.length > 0 ? 'stacked-bar' : 'line';
  if (categories.length > 1) return 'stacked-bar';
  if (measures.length > 1) return 'grouped-bar';
  return 'bar';
}

/** A d3 number format for a column: the report's format, else the model's. */
export function d3Format(column: Column, formats: ColumnFormats = {}): string {
  const chosen = formats[column.name] ?? formats[column.name.replace(/\.[a-z]+$/, '')];
  const type = chosen?.type ?? column.format;
  const places = chosen?.decimalPlaces;
  if (type === 'currency') return `$,.${places ?? 2}f`;
  if (type === 'percent') return `.${places ?? 1}%`;
  return places === undefined || places === null ? ',.2~f' : `,.${places}f`;
}

/** An axis format: short (`$1.2k`) for money and plain numbers, percent as percent. */
function axisFormat(column: Column, formats: ColumnFormats): string {
  const f = d3Format(column, formats);
  if (f.startsWith('$')) return '$,.2~s';
  if (f.endsWith('%')) return '.0%';
  return ',.2~s';
}

const MEASURE = 'Measure';
const VALUE = 'Value';

/**
 * The Vega-Lite spec (no data) that draws `table` as `kind`. Several measures on one chart are
 * folded into a `Measure` / `Value` pair, their titles in the legend.
 */
export function buildChartSpec(
  kind: ChartKind,
  table: Table,
  formats: ColumnFormats = {},
  title?: string,
): Record<string, unknown> | null {
  if (kind === 'table' || kind === 'number') return null;
  const { time, categories, measures } = rolesOf(table);
  if (measures.length === 0) return null;
  const base: Record<string, unknown> = {
    $schema: VEGA_LITE_SCHEMA,
    ...(title ? { description: title } : {}),
  };
  const tooltip = table.columns.map((c) =>
    c.kind === 'time'
      ? { field: c.name, type: 'temporal', title: c.title }
      : isNumeric(c)
        ? { field: c.name, type: 'quantitative', title: c.title, format: d3Format(c, formats) }
        : { field: c.name, type: 'nominal', title: c.title },
  );
  const nominal = (c: Column, extra: Record<string, unknown> = {}) => ({
    field: c.name,
    type: 'nominal',
    title: c.title,
    ...extra,
  });
  const quantity = (c: Column, extra: Record<string, unknown> = {}) => ({
    field: c.name,
    type: 'quantitative',
    title: c.title,
    axis: { format: axisFormat(c, formats) },
    ...extra,
  });

  if (kind === 'scatter') {
    const [x, y] = measures;
    return {
      ...base,
      mark: { type: 'point', filled: true, size: 60 },
      encoding: {
        x: quantity(x),
        y: quantity(y),
        ...(categories[0] ? { color: nominal(categories[0]) } : {}),
        tooltip,
      },
    };
  }
  if (kind === 'pie') {
    const [m] = measures;
    const category = categories[0] ?? time;
    if (!category) return null;
    return {
      ...base,
      mark: { type: 'arc', innerRadius: 40, padAngle: 0.01 },
      encoding: {
        theta: { field: m.name, type: 'quantitative', stack: true },
        color: nominal(category, { sort: { field: m.name, order: 'descending' } }),
        tooltip,
      },
    };
  }

  // x: the time column, else the first category.
  const x = time ?? categories[0];
  if (!x) return null;
  const xEncoding =
    x.kind === 'time'
      ? { field: x.name, type: 'temporal', title: null }
      : nominal(x, { sort: null, axis: { labelAngle: -30, labelLimit: 120 } });
  // The series: a second category, or several measures folded into one.
  const series = time ? categories[0] : categories[1];
  const folded = measures.length > 1 && !series;
  const transform: unknown[] = [];
  let y: Record<string, unknown>;
  let color: Record<string, unknown> | null = null;
  if (folded) {
    transform.push({ fold: measures.map((m) => m.name), as: ['measure', VALUE] });
    transform.push({ calculate: titleExpression(measures), as: MEASURE });
    y = {
      field: VALUE,
      type: 'quantitative',
      title: null,
      axis: { format: axisFormat(measures[0], formats) },
    };
    color = { field: MEASURE, type: 'nominal', title: null, sort: measures.map((m) => m.title) };
  } else {
    y = quantity(measures[0]);
    if (series) color = nominal(series);
  }
  const mark =
    kind === 'line'
      ? { type: 'line', point: true, interpolate: 'monotone' }
      : kind === 'area'
        ? { type: 'area', line: true, opacity: 0.7 }
        : { type: 'bar' };
  const encoding: Record<string, unknown> = {
    x: xEncoding,
    y,
    tooltip: folded ? foldedTooltip(x, formats, measures) : tooltip,
  };
  if (color) encoding.color = color;
  // Bars side by side: asked for, or a plain bar chart of several measures (their units differ).
  const sideBySide = kind === 'grouped-bar' || (kind === 'bar' && folded);
  if (color && sideBySide) encoding.xOffset = { field: color.field, type: 'nominal', sort: color.sort };
  else if (color && (kind === 'bar' || kind === 'stacked-bar' || kind === 'area')) y.stack = true;
  if (x.kind === 'time' && kind !== 'line' && kind !== 'area')
    // Bars on a time axis: one band per period, labelled at the grain.
    encoding.x = { field: x.name, type: 'ordinal', title: null, timeUnit: grainUnit(x.grain) };
  return { ...base, ...(transform.length > 0 ? { transform } : {}), mark, encoding };
}

/** Vega-Lite time units for a band per period on an ordinal axis. */
function grainUnit(grain: string | undefined): string {
  switch (grain) {
    case 'year':
      return 'year';
    case 'quarter':
      return 'yearquarter';
    case 'month':
      return 'yearmonth';
    case 'week':
      return 'yearweek';
    case 'day':
      return 'yearmonthdate';
    case 'hour':
      return 'yearmonthdatehours';
    default:
      return 'yearmonthdatehoursminutes';
  }
}

function quote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A Vega expression naming each folded measure by its title. */
function titleExpression(measures: Column[]): string {
  return measures.reduceRight(
    (rest, m) => `datum.measure === ${quote(m.name)} ? ${quote(m.title)} : ${rest}`,
    'datum.measure',
  );
}

function foldedTooltip(x: Column, formats: ColumnFormats, measures: Column[]) {
  const same = new Set(measures.map((m) => d3Format(m, formats))).size === 1;
  return [
    x.kind === 'time'
      ? { field: x.name, type: 'temporal', title: x.title }
      : { field: x.name, type: 'nominal', title: x.title },
    { field: MEASURE, type: 'nominal', title: 'Measure' },
    {
      field: VALUE,
      type: 'quantitative',
      title: 'Value',
      format: same ? d3Format(measures[0], formats) : ',.2~f',
    },
  ];
}
