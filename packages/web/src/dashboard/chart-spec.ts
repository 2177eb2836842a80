import type { Row } from './rows.ts';
import type { Grain } from './types.ts';

/** Vega-Lite time units that label a value truncated to each grain. */
const timeUnits: Record<string, string> = {
  second: 'yearmonthdatehoursminutesseconds',
  minute: 'yearmonthdatehoursminutes',
  hour: 'yearmonthdatehours',
  day: 'yearmonthdate',
  week: 'yearweek',
  month: 'yearmonth',
  quarter: 'yearquarter',
  year: 'year',
};
const grainSuffix = /\.(second|minute|hour|day|week|month|quarter|year)$/;

const escapeField = (name: string) => name.replaceAll('.', '\\.');
const unescapeField = (field: string) => field.replaceAll('\\.', '.');

/**
 * The report's Vega-Lite spec made ready for these rows:
 * - a field names a result column; row keys are member names with dots, which Vega-Lite would read
 *   as nested properties, so a field equal to a column (escaped or not) is escaped;
 * - a time-grain override renames the time column (`orders.created_at.month` becomes
 *   `orders.created_at.week`), so fields on that member follow, and a `timeUnit` on them becomes the
 *   new grain's;
 * - the rows go in as inline data (the spec holds none), as copies.
 */
export function chartSpec(
  spec: Record<string, unknown>,
  rows: Row[],
  columns: readonly string[],
  grains: Readonly<Record<string, Grain>>,
): Record<string, unknown> {
  const known = new Set(columns);
  const rename = (name: string): { name: string; grain?: Grain } => {
    const match = grainSuffix.exec(name);
    if (!match) return { name };
    const member = name.slice(0, match.index);
    const grain = grains[member];
    return grain ? { name: `${member}.${grain}`, grain } : { name };
  };
  const fieldOf = (field: string) => {
    const renamed = rename(unescapeField(field));
    return known.has(renamed.name) ? { field: escapeField(renamed.name), grain: renamed.grain } : { field };
  };
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) {
      const names = key === 'fold' || key === 'groupby' || key === 'fields';
      return value.map((v) => (names && typeof v === 'string' ? fieldOf(v).field : walk(v)));
    }
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'data' || k === 'datasets') continue;
      out[k] = walk(v, k);
    }
    if (typeof out.field === 'string') {
      const { field, grain } = fieldOf(out.field);
      out.field = field;
      if (grain && typeof out.timeUnit === 'string') out.timeUnit = timeUnits[grain];
    }
    return out;
  };
  const ready = walk(spec) as Record<string, unknown>;
  // Copies: Vega parses values in place (dates become Date objects), and the tile's CSV and table
  // read the same rows.
  return { ...ready, data: { values: rows.map((row) => ({ ...row })) } };
}
