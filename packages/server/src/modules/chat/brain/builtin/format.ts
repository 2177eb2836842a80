import { formatValue } from '../../../../../../client/src/format/table.ts';

/**
 * Numbers as an answer states them: thousands separators, two decimals at most (four below one,
 * so that ratios keep their meaning). The exact values stay in the tool result.
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = Math.abs(value) >= 1 || value === 0 ? 2 : 4;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/**
 * A measure's figure in the model's format, as the dashboard's tiles state it (the client's one
 * formatting module: currency as US dollars with cents, percent with one decimal); other figures
 * as `formatNumber`.
 */
export function formatFigure(value: number, format: string | null): string {
  if (format !== 'currency' && format !== 'percent') return formatNumber(value);
  return formatValue(value, { name: '', title: '', kind: 'measure', format });
}

/** A SQL-API value (numbers arrive as text, spec 4.6) as a number, or null. */
export function numberOf(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** "+12.5%" / "-3%": the change from `before` to `after`, or null when `before` is zero. */
export function percentChange(before: number, after: number): string | null {
  if (before === 0) return null;
  const pct = ((after - before) / Math.abs(before)) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toLocaleString('en-US', { maximumFractionDigits: 1 })}%`;
}

/** "a, b and c". */
export function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export const quoted = (words: readonly string[]) => joinWords(words.map((w) => `"${w}"`));
