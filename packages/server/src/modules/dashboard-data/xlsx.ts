// The table formatting is the client package's, shared with the web viewer and the renderer
// (DESIGN.md "Packages": the server may import that one pure module of the client).
import ExcelJS from 'exceljs';
import {
  type CellFormats,
  type Column,
  formatTime,
  type RowsMeta,
  toTable,
} from '../../../../client/src/format/table.ts';

export const xlsxContentType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Excel's number formats for the time grains it can show as dates; a quarter is written as text. */
const grainFormats: Record<string, string> = {
  year: 'yyyy',
  month: 'mmm yyyy',
  week: 'yyyy-mm-dd',
  day: 'yyyy-mm-dd',
  hour: 'yyyy-mm-dd hh:mm',
  minute: 'yyyy-mm-dd hh:mm',
  second: 'yyyy-mm-dd hh:mm:ss',
};

/**
 * A widget's rows as an Excel workbook (issue 23 item 3, the tile menu's "Download XLSX"): one
 * sheet with the table's columns and titles as the tile shows them, numbers as numbers and times
 * as dates (so that a spreadsheet can sum and sort them), each cell with the Excel number format
 * matching the report's column format or the model's measure format (spec 2.3 `columnFormats`).
 */
export async function widgetWorkbook(
  sheetTitle: string,
  rows: Record<string, unknown>[],
  meta: RowsMeta,
  formats: CellFormats,
): Promise<Buffer> {
  const table = toTable(rows, meta);
  const book = new ExcelJS.Workbook();
  book.creator = 'Tessera';
  const sheet = book.addWorksheet(sheetName(sheetTitle), { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = table.columns.map((column) => ({
    header: column.title,
    key: column.name,
    width: Math.min(48, Math.max(10, column.title.length + 2)),
    style: { numFmt: numberFormat(column, formats, table.rows) },
  }));
  sheet.getRow(1).font = { bold: true };
  for (const row of table.rows)
    sheet.addRow(table.columns.map((column) => cellValue(row[column.name], column)));
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** Excel limits a sheet's name to 31 characters without `[]:*?/\`. */
function sheetName(title: string): string {
  return (
    title
      .replace(/[[\]:*?/\\]+/g, ' ')
      .trim()
      .slice(0, 31) || 'Data'
  );
}

function cellValue(value: unknown, column: Column): ExcelJS.CellValue {
  if (value === null || value === undefined) return null;
  if (column.kind === 'time' && typeof value === 'string') {
    // A quarter has no Excel date format: it reads as the page shows it ("Q1 2024").
    if (column.grain === 'quarter') return formatTime(value, 'quarter');
    // The data API's times are wall-clock times without a zone; Excel's dates have none either.
    const date = new Date(`${value.replace(' ', 'T').slice(0, 23)}Z`);
    return Number.isNaN(date.getTime()) ? value : date;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The column's format as Excel writes it: by the report's choice, else the measure's format. */
function numberFormat(
  column: Column,
  formats: CellFormats,
  rows: readonly Record<string, unknown>[],
): string | undefined {
  if (column.kind === 'time') return grainFormats[column.grain ?? ''] ?? 'yyyy-mm-dd hh:mm:ss';
  if (column.kind !== 'measure' && column.kind !== 'number') return undefined;
  if (column.kind === 'number' && column.name.endsWith('.id')) return '0';
  const chosen = formats[column.name] ?? formats[column.name.replace(/\.[a-z]+$/, '')];
  const type =
    chosen?.type ?? (column.format === 'currency' || column.format === 'percent' ? column.format : null);
  const places = chosen?.decimalPlaces ?? null;
  const decimals = (n: number) => (n > 0 ? `.${'0'.repeat(n)}` : '');
  if (type === 'currency') return `"$"#,##0${decimals(places ?? 2)}`;
  if (type === 'percent') return `0${decimals(places ?? 1)}%`;
  if (places !== null) return `#,##0${decimals(places)}`;
  // As the tile: at most two decimals; whole numbers without a dangling decimal point.
  return rows.every((row) => Number.isInteger(row[column.name] ?? 0)) ? '#,##0' : '#,##0.00';
}
