import { type Column, formatTime, formatValue, type Table } from './rows.ts';

export interface CsvOptions {
  /**
   * Member names as headers and values as the data API sent them (ISO times, plain numbers), for
   * a file another program reads back; by default a person's file: titles and formatted values.
   */
  raw?: boolean;
}

/**
 * The rows a tile already holds as CSV (RFC 4180: CRLF line ends, fields with a comma, quote or
 * line break quoted, quotes doubled). By default the headers are the members' titles and the
 * values are formatted by the model's formats (a currency measure as dollars, a percent as a
 * percentage), times at their grain (`2024-03` for a month, `2024-Q1` for a quarter); `raw` keeps
 * member names and the values as sent. A text value a spreadsheet would run as a formula (=, +,
 * -, @ first) is prefixed with a quote mark (OWASP "CSV injection"); numbers are left alone.
 */
export function toCsv(table: Table, options: CsvOptions = {}): string {
  const { raw = false } = options;
  const lines = [table.columns.map((c) => field(raw ? c.name : c.title))];
  for (const row of table.rows)
    lines.push(table.columns.map((c) => (raw ? field(row[c.name]) : formattedField(row[c.name], c))));
  return `${lines.map((l) => l.join(',')).join('\r\n')}\r\n`;
}

function formattedField(value: unknown, column: Column): string {
  if (value === null || value === undefined) return '';
  if (column.kind === 'time' && typeof value === 'string') return field(timeAtGrain(value, column.grain));
  // A number formatted is text ("$1,234.50", "-2"): a leading minus is a number's, not a formula's.
  const text = formatValue(value, column);
  return typeof value === 'number' ? quoteIfNeeded(text) : field(text);
}

/** A period's start as its period reads: `2024` for a year, `2024-Q1`, `2024-03`, else the date. */
function timeAtGrain(value: string, grain: string | undefined): string {
  const match = /^(\d{4})-(\d{2})/.exec(value);
  if (match && grain === 'year') return match[1];
  if (match && grain === 'quarter') return `${match[1]}-Q${Math.floor((Number(match[2]) - 1) / 3) + 1}`;
  if (match && grain === 'month') return `${match[1]}-${match[2]}`;
  return formatTime(value);
}

function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return quoteIfNeeded(text);
}

function quoteIfNeeded(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
