/**
 * Which chart suits a result, and its Vega-Lite spec: a pure function of the result's columns.
 * The spec names columns by their row keys (dots and all) and holds no data; chart-spec.ts
 * (the dashboard's, shared) escapes the names, labels time at its grain and puts the rows in.
 */
import { grainFormats } from '../dashboard/chart-spec.ts';
import type { Grain } from '../dashboard/types.ts';
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
  if (time) return 'line';
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

/** The two measures' colours on a two-axis chart without a series (the theme's blue, then orange). */
const secondColors = ['#3b6fd8', '#f59f3a'];
const MEASURE = 'Measure';
const VALUE = 'Value';
/** A folded value formatted as its own measure (count as a count, amount as money). */
const SHOWN = 'Shown value';

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
      transform: [{ calculate: describeExpression(table.columns, formats), as: DESCRIPTION }],
      mark: { type: 'point', filled: true, size: 60 },
      encoding: {
        description: { field: DESCRIPTION },
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
      transform: [{ calculate: describeExpression(table.columns, formats), as: DESCRIPTION }],
      mark: { type: 'arc', innerRadius: 40, padAngle: 0.01 },
      encoding: {
        description: { field: DESCRIPTION },
        theta: { field: m.name, type: 'quantitative', stack: true },
        color: nominal(category, { sort: { field: m.name, order: 'descending' } }),
        tooltip,
      },
    };
  }

  // x: the time column, else the first category; the series: the next category.
  const x = time ?? categories[0];
  if (!x) return null;
  const series = time ? categories[0] : categories[1];
  const folded = measures.length > 1;
  const bars = kind === 'bar' || kind === 'grouped-bar' || kind === 'stacked-bar';
  const encoding: Record<string, unknown> = {
    x:
      x.kind !== 'time'
        ? nominal(x, { sort: null, axis: { labelAngle: -30, labelLimit: 120 } })
        : bars
          ? // Bars on a time axis: one band per period, labelled at the grain.
            { field: x.name, type: 'ordinal', title: null, timeUnit: grainUnit(x.grain) }
          : { field: x.name, type: 'temporal', title: null },
  };
  // Bars of a count beside bars of money on one axis leave the count flat at zero: two measures
  // in different units draw as bars for the first (left axis) and a line for the second (right).
  const combo =
    kind === 'bar' &&
    measures.length === 2 &&
    !series &&
    d3Format(measures[0], formats) !== d3Format(measures[1], formats);
  if (measures.length === 2 && (kind === 'line' || kind === 'area' || combo)) {
    // Two measures over time: one axis each (left and right), the second one dashed, so that a
    // count and an amount of money are both readable.
    const layer = measures.map((m, i) => ({
      mark:
        combo && i === 0
          ? { type: 'bar', color: secondColors[0], opacity: 0.85 }
          : kind === 'line' || combo
            ? {
                type: 'line',
                point: true,
                interpolate: 'monotone',
                ...(i === 1 ? { strokeDash: [6, 3] } : {}),
                ...(series ? {} : { color: secondColors[i] }),
              }
            : { type: 'area', line: true, opacity: 0.45, ...(series ? {} : { color: secondColors[i] }) },
      encoding: {
        x: encoding.x,
        y: quantity(m, {
          axis: {
            format: axisFormat(m, formats),
            orient: i === 0 ? 'left' : 'right',
            title: i === 1 ? `${m.title} (dashed)` : m.title,
            ...(series ? {} : { titleColor: secondColors[i] }),
          },
        }),
        ...(series ? { color: nominal(series) } : {}),
        tooltip,
      },
    }));
    return {
      ...base,
      transform: [{ calculate: describeExpression(table.columns, formats), as: DESCRIPTION }],
      layer: layer.map((l) => ({ ...l, encoding: { ...l.encoding, description: { field: DESCRIPTION } } })),
      resolve: { scale: { y: 'independent' } },
    };
  }
  const transform: unknown[] = [];
  const measureChannel = { field: MEASURE, type: 'nominal', title: null, sort: measures.map((m) => m.title) };
  if (folded) {
    // Several measures: one `Value` column, a `Measure` column naming each by its title.
    transform.push({ fold: measures.map((m) => m.name), as: ['measure', VALUE] });
    transform.push({ calculate: titleExpression(measures), as: MEASURE });
    transform.push({ calculate: formattedExpression(measures, formats), as: SHOWN });
    transform.push({
      calculate: describeExpression(
        [
          x,
          ...(series ? [series] : []),
          { title: 'Measure', field: MEASURE },
          { title: 'Value', field: SHOWN },
        ],
        formats,
      ),
      as: DESCRIPTION,
    });
    encoding.y = {
      field: VALUE,
      type: 'quantitative',
      title: null,
      axis: { format: axisFormat(measures[0], formats) },
    };
    encoding.tooltip = foldedTooltip(x, series);
  } else {
    encoding.y = quantity(measures[0]);
    encoding.tooltip = tooltip;
    transform.push({ calculate: describeExpression(table.columns, formats), as: DESCRIPTION });
  }
  encoding.description = { field: DESCRIPTION };
  const y = encoding.y as Record<string, unknown>;
  if (series) {
    encoding.color = nominal(series);
    if (folded && bars) encoding.xOffset = measureChannel;
    else if (folded) encoding.strokeDash = measureChannel;
    else if (kind === 'grouped-bar') encoding.xOffset = { field: series.name, type: 'nominal' };
    if (bars && kind !== 'grouped-bar') y.stack = true;
    if (kind === 'grouped-bar' && folded) y.stack = true;
    if (kind === 'area') y.stack = folded ? null : true;
  } else if (folded) {
    encoding.color = measureChannel;
    if (kind === 'bar' || kind === 'grouped-bar') encoding.xOffset = measureChannel;
    if (kind === 'stacked-bar') y.stack = true;
    if (kind === 'area') y.stack = null;
  }
  const mark =
    kind === 'line'
      ? { type: 'line', point: true, interpolate: 'monotone' }
      : kind === 'area'
        ? { type: 'area', line: true, opacity: 0.6 }
        : { type: 'bar' };
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

/** The field holding each mark's description for screen readers (also what a test reads). */
const DESCRIPTION = 'Description';

/**
 * A Vega expression describing a row as the table reads it: `Status: completed; Created At: Apr
 * 2023; Count: 21; Total order amount: $4,952.50`. Vega-Lite's own description would name a
 * position channel by its field and format a value by its axis (`$5k`).
 */
function describeExpression(
  parts: readonly (Column | { title: string; field: string })[],
  formats: ColumnFormats,
): string {
  const value = (p: Column | { title: string; field: string }) => {
    if ('field' in p) return `datum[${quote(p.field)}]`;
    const at = `datum[${quote(p.name)}]`;
    if (p.kind === 'time')
      return `timeFormat(toDate(${at}), ${quote(grainFormats[(p.grain ?? 'day') as Grain] ?? grainFormats.day)})`;
    if (isNumeric(p)) return `format(${at}, ${quote(d3Format(p, formats))})`;
    return `${at} === null ? '–' : '' + ${at}`;
  };
  return parts.map((p) => `${quote(`${p.title}: `)} + (${value(p)})`).join(` + '; ' + `);
}

/** A Vega expression naming each folded measure by its title. */
function titleExpression(measures: Column[]): string {
  return measures.reduceRight(
    (rest, m) => `datum.measure === ${quote(m.name)} ? ${quote(m.title)} : ${rest}`,
    'datum.measure',
  );
}

/** A Vega expression formatting each folded value by its measure's format. */
function formattedExpression(measures: Column[], formats: ColumnFormats): string {
  return measures.reduceRight(
    (rest, m) =>
      `datum.measure === ${quote(m.name)} ? format(datum.${VALUE}, ${quote(d3Format(m, formats))}) : ${rest}`,
    `format(datum.${VALUE}, ',.2~f')`,
  );
}

function foldedTooltip(x: Column, series: Column | undefined) {
  return [
    x.kind === 'time'
      ? { field: x.name, type: 'temporal', title: x.title }
      : { field: x.name, type: 'nominal', title: x.title },
    ...(series ? [{ field: series.name, type: 'nominal', title: series.title }] : []),
    { field: MEASURE, type: 'nominal', title: 'Measure' },
    { field: SHOWN, type: 'nominal', title: 'Value' },
  ];
}
