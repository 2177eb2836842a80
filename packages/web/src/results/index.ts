/**
 * Result pieces shared by Explore and the SQL editor: rows and column descriptions in, a table,
 * a chart, a spec editor and an SQL view out. Nothing here fetches.
 *
 * - `tableFromLoad(answer)` / `tableFromSql(columns, rows)`: a `Table` (columns titled and typed).
 * - `<ResultTable table formats onCellClick />`: virtualised rows, formatted.
 * - `chooseChart(table)`, `chartKindsFor(table)`, `buildChartSpec(kind, table, formats)`.
 * - `<ResultChart table kind spec? formats />`, `<ChartPicker kinds value onChange />`.
 * - `<SpecEditor spec onApply onReset />`, `<SqlView sql params />`.
 */
export {
  buildChartSpec,
  type ChartKind,
  chartKindLabels,
  chartKinds,
  chartKindsFor,
  chooseChart,
  d3Format,
  VEGA_LITE_SCHEMA,
} from './chart-kinds.ts';
export { BigNumbers, ResultTable, type ResultTableProps } from './data-table.tsx';
export { ChartPicker, ResultChart, type ResultChartProps } from './result-chart.tsx';
export { SpecEditor } from './spec-editor.tsx';
export { SqlView } from './sql-view.tsx';
export {
  type Column,
  type ColumnFormat,
  type ColumnFormats,
  type ColumnKind,
  cellText,
  formatValue,
  isNumeric,
  type Row,
  type Table,
  tableFromLoad,
  tableFromSql,
} from './table.ts';
