import { useCallback, useMemo, useState } from 'react';
import '../dashboard/dashboard.css';
import { chartSpec } from '../dashboard/chart-spec.ts';
import { chartConfig, mergeTheme } from '../dashboard/theme.ts';
import { VegaChart } from '../dashboard/vega-chart.tsx';
import { buildChartSpec, type ChartKind, chartKindLabels } from './chart-kinds.ts';
import { BigNumbers } from './data-table.tsx';
import type { ColumnFormats, Table } from './table.ts';
import './results.css';

const defaultConfig = chartConfig(mergeTheme(null));
/** One object, so that the chart's spec is built again only when something it reads changes. */
const noFormats: ColumnFormats = {};

/** What tests wait on: `data-state` on the chart's box. */
export type ChartState = 'drawing' | 'drawn' | 'error';

export interface ResultChartProps {
  table: Table;
  kind: ChartKind;
  /** A Vega-Lite spec (no data) that replaces the one built for `kind` (the spec editor's). */
  spec?: Record<string, unknown> | null;
  formats?: ColumnFormats;
  /** Read by screen readers as the chart's description. */
  title?: string;
}

/**
 * The result drawn as `kind` (or as the given spec): a Vega-Lite chart the size of its box (CSS
 * height on `.rs-chart`), or large figures for `number`. `table` draws nothing: the caller shows
 * the table. A spec Vega refuses says so in place of the chart.
 */
export function ResultChart({ table, kind, spec: custom, formats = noFormats, title }: ResultChartProps) {
  const spec = useMemo(() => {
    const source = custom ?? buildChartSpec(kind, table, formats, title);
    if (!source) return null;
    return chartSpec(
      source.description === undefined && title ? { description: title, ...source } : source,
      table.rows,
      table.columns.map((c) => c.name),
      {},
    );
  }, [custom, kind, table, formats, title]);
  const [drawn, setDrawn] = useState<object | null>(null);
  const [failed, setFailed] = useState<{ spec: object; message: string } | null>(null);
  const onDrawn = useCallback((s: object) => setDrawn(s), []);
  const onError = useCallback((e: Error) => spec && setFailed({ spec, message: e.message }), [spec]);

  if (!custom && kind === 'number')
    return (
      <div className="rs-chart-box rs-chart-number" data-state="drawn" data-kind="number">
        <BigNumbers table={table} formats={formats} />
      </div>
    );
  if (!spec) return null;
  const error = failed?.spec === spec ? failed.message : null;
  const state: ChartState = error ? 'error' : drawn === spec ? 'drawn' : 'drawing';
  return (
    <div
      className="rs-chart-box"
      data-state={state}
      data-kind={custom ? 'custom' : kind}
      role="img"
      aria-label={`${custom ? 'Chart' : `${chartKindLabels[kind]} chart`}${title ? ` of ${title}` : ''}`}
    >
      {error ? (
        <p className="form-error rs-chart-error" role="alert">
          The chart could not be drawn: {error}
        </p>
      ) : (
        <VegaChart spec={spec} config={defaultConfig} onDrawn={onDrawn} onError={onError} />
      )}
    </div>
  );
}

/** The chart kinds this result can take, as a row of toggle buttons. */
export function ChartPicker({
  kinds,
  value,
  onChange,
}: {
  kinds: readonly ChartKind[];
  value: ChartKind;
  onChange: (kind: ChartKind) => void;
}) {
  return (
    <fieldset className="rs-picker">
      <legend className="visually-hidden">Chart</legend>
      {kinds.map((k) => (
        <button
          key={k}
          type="button"
          className={k === value ? 'rs-pick rs-pick-on' : 'rs-pick'}
          aria-pressed={k === value}
          onClick={() => onChange(k)}
        >
          {chartKindLabels[k]}
        </button>
      ))}
    </fieldset>
  );
}
