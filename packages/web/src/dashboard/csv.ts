import type { Table } from './rows.ts';

/**
 * The rows a tile already holds as CSV (RFC 4180: CRLF line ends, fields with a comma, quote or
 * line break quoted, quotes doubled). Headers are the member names, values as the data API sent
 * them. A text value a spreadsheet would run as a formula (=, +, -, @ first) is prefixed with a
 * quote mark (OWASP "CSV injection"); numbers are left alone.
 */
export function toCsv(table: Table): string {
  const lines = [table.columns.map((c) => field(c.name))];
  for (const row of table.rows) lines.push(table.columns.map((c) => field(row[c.name])));
  return `${lines.map((l) => l.join(',')).join('\r\n')}\r\n`;
}

function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
