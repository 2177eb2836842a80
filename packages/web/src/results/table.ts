/**
 * What the result pieces draw from: rows keyed by column, and the columns described (name, title,
 * kind, the data API's format). Built by the client's one formatting module (dashboard/rows.ts),
 * so a cell reads alike in Explore, the SQL editor, a report and a dashboard tile.
 */
import { type Column, formatValue, type Row, type Table, toTable } from '../dashboard/rows.ts';
import type { ColumnFormat } from '../dashboard/types.ts';

export { type Column, type ColumnKind, formatValue, type Row, type Table } from '../dashboard/rows.ts';
export type { ColumnFormat } from '../dashboard/types.ts';

/** A report's formats by column name (`preferences.columnFormats`); the model's formats apply otherwise. */
export type ColumnFormats = Record<string, ColumnFormat>;

/** A `/v1/load` answer as a table (numbers as numbers, titled columns, no duplicate time column). */
export function tableFromLoad(answer: { data: unknown; annotation?: unknown }): Table {
  return toTable({
    kind: 'semantic',
    annotation: answer.annotation,
    data: Array.isArray(answer.data) ? (answer.data as Row[]) : [],
    totalRows: null,
  });
}

/** SQL-API rows (`/v1/cubesql`: a schema, then rows as arrays or objects) as a table. */
export function tableFromSql(
  columns: readonly { name: string; column_type: string }[],
  rows: readonly (readonly unknown[] | Row)[],
): Table {
  const data = rows.map((row) =>
    Array.isArray(row) ? Object.fromEntries(columns.map((c, i) => [c.name, row[i]])) : (row as Row),
  );
  return toTable({ kind: 'sql', columns: [...columns], data, totalRows: null });
}

/** True for a column that holds quantities (right-aligned, summed by charts). */
export const isNumeric = (c: Column) => c.kind === 'measure' || c.kind === 'number';

/** One cell as a person reads it. */
export function cellText(row: Row, column: Column, formats: ColumnFormats = {}): string {
  return formatValue(row[column.name], column, formats);
}
