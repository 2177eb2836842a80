/**
 * A Vega-Lite v5 chart for a query result, without data (spec 4.6: "the `vegaSpec` holds no data;
 * charts are drawn from `toolCall.result.data`", with field names from the result's schema).
 * Time goes on a line, categories on bars, a single total is a big number, and a second
 * category or several periods or measures make grouped, coloured bars.
 */

export type ChartGranularity = 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

export interface ChartColumn {
  /** The column's name in the result schema: the spec's field. */
  name: string;
  role: 'time' | 'category' | 'measure';
  /** Axis and legend title; the name when absent. */
  title?: string;
  /** For time columns: the unit the values were truncated to. */
  granularity?: ChartGranularity;
  /** For measures: the model's format (`currency`, `percent`), which labels and figures follow. */
  format?: string;
}

/** d3-format specifiers for a figure and for an axis, by the model's format of a measure. */
const FIGURE_FORMATS: Record<string, string> = { currency: '$,.2f', percent: '.1~%' };
const AXIS_FORMATS: Record<string, string> = { currency: '$,.2s', percent: '.0%' };
const axisFormat = (c: { format?: string }) =>
  c.format && AXIS_FORMATS[c.format] ? { axis: { format: AXIS_FORMATS[c.format] } } : {};

export interface ChartOptions {
  title?: string;
  /** Rows the result holds: one row and one measure is a single figure. */
  rowCount: number;
  /** Time columns that stand for a few compared periods (2023 vs 2024): drawn as bars, not a line. */
  comparePeriods?: boolean;
}

export type VegaLiteSpec = Record<string, unknown>;

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** Vega-Lite time units that label a truncated time value at its own granularity. */
const TIME_UNITS: Record<ChartGranularity, string> = {
  hour: 'yearmonthdatehours',
  day: 'yearmonthdate',
  week: 'yearweek',
  month: 'yearmonth',
  quarter: 'yearquarter',
  year: 'year',
};

/** Roles from a result schema alone (for a chart over SQL the agent did not write itself). */
export function columnsFromSchema(schema: readonly { name: string; column_type: string }[]): ChartColumn[] {
  return schema.map((c) => ({
    name: c.name,
    role:
      c.column_type === 'Timestamp'
        ? 'time'
        : /^(Int|Float|Decimal|UInt)/.test(c.column_type)
          ? 'measure'
          : 'category',
  }));
}

/** The chart for these columns, or null when none fits (no measure, or too many dimensions). */
export function pickChart(columns: readonly ChartColumn[], options: ChartOptions): VegaLiteSpec | null {
  const measures = columns.filter((c) => c.role === 'measure');
  const times = columns.filter((c) => c.role === 'time');
  const categories = columns.filter((c) => c.role === 'category');
  if (measures.length === 0 || times.length > 1) return null;
  const base: VegaLiteSpec = { $schema: SCHEMA, ...(options.title ? { title: options.title } : {}) };
  const time = times[0];

  if (!time && categories.length === 0) {
    if (options.rowCount !== 1 || measures.length !== 1) return null;
    return { ...base, ...bigNumber(measures[0]) };
  }
  // several measures: fold them into one "measure" series so they can share an axis
  const folded = measures.length > 1;
  const value = folded ? { name: 'value', title: 'Value' } : measures[0];
  const series: ChartColumn | null = folded ? { name: 'measure', role: 'category', title: 'Measure' } : null;
  const transform = folded
    ? { transform: [{ fold: measures.map((m) => m.name), as: ['measure', 'value'] }] }
    : {};
  const y = {
    field: value.name,
    type: 'quantitative',
    title: value.title ?? value.name,
    ...(folded ? {} : axisFormat(measures[0])),
  };

  if (time && !options.comparePeriods) {
    const colour = series ?? categories[0];
    if (categories.length > (series ? 0 : 1)) return null;
    return {
      ...base,
      ...transform,
      mark: { type: 'line', point: true },
      encoding: {
        x: timeAxis(time, 'temporal'),
        y,
        ...(colour ? { color: nominal(colour) } : {}),
      },
    };
  }

  // bars: the first category (or the compared periods) along x, a second one side by side
  const groups: Record<string, unknown>[] = [
    ...(time ? [timeAxis(time, 'ordinal')] : []),
    ...categories.map((c) => nominal(c)),
    ...(series ? [nominal(series)] : []),
  ];
  if (groups.length > 2) return null;
  const [x, offset] = time && groups.length === 2 ? [groups[1], groups[0]] : groups;
  return {
    ...base,
    ...transform,
    mark: { type: 'bar' },
    encoding: {
      x: offset ? x : { ...x, sort: '-y' },
      y,
      ...(offset ? { xOffset: offset, color: offset } : time ? { color: x } : {}),
    },
  };
}

function bigNumber(measure: ChartColumn): VegaLiteSpec {
  return {
    mark: { type: 'text', fontSize: 48, fontWeight: 'bold' },
    encoding: {
      text: {
        field: measure.name,
        type: 'quantitative',
        format: (measure.format && FIGURE_FORMATS[measure.format]) ?? ',.2~f',
        title: measure.title ?? measure.name,
      },
    },
  };
}

function timeAxis(column: ChartColumn, type: 'temporal' | 'ordinal'): Record<string, unknown> {
  return {
    field: column.name,
    type,
    ...(column.granularity ? { timeUnit: TIME_UNITS[column.granularity] } : {}),
    title: column.title ?? column.name,
  };
}

function nominal(column: ChartColumn): Record<string, unknown> {
  return { field: column.name, type: 'nominal', title: column.title ?? column.name };
}
