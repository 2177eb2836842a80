// Columns, titles and cell formats come from the client package's one formatting module, which
// the server's notification renderer uses too, so that an emailed table reads as this page does.
// Imported by file (as types.ts explains) so that the viewer's pure parts type-check and run
// without the client's build; @tessera/client exports the same module.
import {
  type Column,
  type RowsMeta,
  type Table,
  toTable as tableOf,
} from '../../../client/src/format/table.ts';
import type { WidgetAnswer } from './types.ts';

export {
  type Column,
  type ColumnKind,
  formatTime,
  formatValue,
  type Row,
  type Table,
} from '../../../client/src/format/table.ts';

/**
 * The answer's rows as a table: numbers as numbers (the data API sends them as strings), and the
 * columns in order, titled, a time grain's duplicate column left out.
 */
export function toTable(answer: WidgetAnswer): Table {
  return tableOf(answer.data, {
    annotation: answer.kind === 'sql' ? null : (answer.annotation as RowsMeta['annotation']),
    columns: answer.kind === 'sql' ? (answer.columns ?? []) : null,
  });
}

/** One row with one measure and nothing else: drawn as a single big number. */
export function singleFigure(table: Table): Column | null {
  if (table.rows.length !== 1 || table.columns.length !== 1) return null;
  const [column] = table.columns;
  return column.kind === 'measure' || column.kind === 'number' ? column : null;
}
