// The table formatting is the client package's, shared with the web viewer (DESIGN.md "Packages":
// the server may import that one pure module of the client, see .dependency-cruiser.cjs).

import { escapeField } from '@tessera/dashboard';
import {
  type CellFormats,
  formatValue,
  type RowsMeta,
  describeColumns as tableColumns,
  toTable,
} from '../../../../client/src/format/table.ts';
import type { TableContent, VegaLiteSpec } from '../../render/index.ts';

export { columnFormatsOf, type RowsMeta } from '../../../../client/src/format/table.ts';

/**
 * What a widget draws when rendered without a browser: the report's own Vega-Lite spec when its
 * snapshot has one, otherwise a chart chosen from the shape of its rows (a single number, a line
 * over time, bars per category), or else the rows as the web viewer's table, so that a report
 * saved without a chart still shows its numbers in a notification rather than an empty tile.
 */

const vegaLite = 'https://vega.github.io/schema/vega-lite/v5.json';
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

/** A column as a chart reads it: a measure to plot, a time axis, or a category. */
interface Column {
  name: string;
  title: string;
  kind: 'measure' | 'time' | 'dimension';
  /** A time dimension's granularity (`year`, `month`, ...), when it has one. */
  grain?: string;
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
 * The rows a chart draws and their columns, as the web viewer's tile has them (`toTable`). The data
 * API sends numbers as strings (Cube's wire format); a chart needs numbers. Values of measures and
 * numeric dimensions (by the annotation, or numeric SQL columns) become numbers.
 */
export function chartRows(
  rows: Record<string, unknown>[],
  meta: RowsMeta,
): { rows: Record<string, unknown>[]; columns: string[] } {
  const table = toTable(rows, meta);
  return { rows: table.rows, columns: table.columns.map((c) => c.name) };
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
 * A text widget's lines (markdown-lines.ts) drawn from the top of the tile: `y` in pixels
 * (`scale: null`), so that one line sits at the top rather than in the middle of a band, each
 * line at its own size; bold lines (headings) in a layer of their own, as Vega-Lite has no
 * font-weight channel.
 */
export function textSpec(): VegaLiteSpec {
  const lines = (weight: 'normal' | 'bold') => ({
    transform: [{ filter: `datum.weight === '${weight}'` }],
    mark: { type: 'text', align: 'left', baseline: 'top', limit: 2000, fontWeight: weight },
    encoding: {
      y: { field: 'y', type: 'quantitative', scale: null, axis: null },
      x: { value: 0 },
      text: { field: 'text' },
      size: { field: 'size', type: 'quantitative', scale: null, legend: null },
    },
  });
  return { $schema: vegaLite, layer: [lines('normal'), lines('bold')] };
}

/** A report's column formats (`preferences.columnFormats`), as the web viewer reads them. */
export type ColumnFormats = CellFormats;

/**
 * The rows as the web viewer's table (`toTable` and `formatValue` of the client package, which
 * the viewer uses too): the members' short titles as headings, a time grain's duplicate column
 * left out, and each value formatted as the page formats it, so that the image reads as the page.
 */
export function tableOf(
  rows: Record<string, unknown>[],
  meta: RowsMeta,
  formats: ColumnFormats,
): TableContent {
  const table = toTable(rows, meta);
  return {
    columns: table.columns.map((c) => ({
      title: c.title,
      numeric: c.kind === 'measure' || table.rows.some((r) => typeof r[c.name] === 'number'),
    })),
    rows: table.rows
      .slice(0, maxTableRows)
      .map((row) => table.columns.map((c) => formatValue(row[c.name], c, formats))),
  };
}

/**
 * The table's columns as a chart reads them: a column the annotation does not describe (a SQL
 * column, an unknown key) is plotted as a measure when it holds numbers.
 */
function describeColumns(rows: Record<string, unknown>[], meta: RowsMeta): Column[] {
  return tableColumns(rows, meta).map((c) => ({
    name: c.name,
    title: c.title,
    kind:
      c.kind === 'measure' || c.kind === 'time'
        ? c.kind
        : c.kind === 'number' && !c.annotated
          ? 'measure'
          : 'dimension',
    grain: c.grain,
  }));
}

/** Vega's tick intervals have no quarter: three months. */
function tickInterval(grain: string) {
  return grain === 'quarter' ? { interval: 'month', step: 3 } : { interval: grain, step: 1 };
}
