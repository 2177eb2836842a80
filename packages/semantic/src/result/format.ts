import type { PlannedColumn } from '../planner/columns.ts';

/**
 * Output column as the server needs it to build Cube's response rows: the SQL alias and every
 * response key it feeds. A time dimension with granularity fills `orders.created_at.month` and,
 * like Cube, also `orders.created_at`.
 */
export interface OutputColumn {
  readonly alias: string;
  readonly keys: readonly string[];
  readonly kind: PlannedColumn['kind'];
  readonly type: string;
}

export function outputColumns(
  columns: readonly PlannedColumn[],
  types: (c: PlannedColumn) => string,
): OutputColumn[] {
  const seen = new Set<string>();
  return columns.map((c) => {
    const keys = [c.key];
    if (c.kind === 'timeDimension' && !seen.has(c.member.path)) keys.push(c.member.path);
    for (const k of keys) seen.add(k);
    return { alias: c.alias, keys, kind: c.kind, type: types(c) };
  });
}

/**
 * One engine row -> one Cube response row. Cube's REST API sends numbers (measures and number
 * dimensions) as strings so that bigints and decimals survive JSON, time values as
 * `YYYY-MM-DDTHH:mm:ss.SSS` without zone, booleans as JSON booleans, NULL as null.
 */
export function formatRow(
  row: Readonly<Record<string, unknown>>,
  columns: readonly OutputColumn[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) {
    const v = formatValue(row[c.alias], c.type);
    for (const k of c.keys) out[k] = v;
  }
  return out;
}

export function formatValue(v: unknown, type: string): unknown {
  if (v === null || v === undefined) return null;
  if (type === 'time') return formatTime(v);
  // MySQL has no boolean type: a boolean dimension comes back as the integer 0 or 1
  if (type === 'boolean' && (v === 0 || v === 1 || v === 0n || v === 1n || v === '0' || v === '1'))
    return Number(v) === 1;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  if (typeof v === 'boolean') return type === 'boolean' ? v : String(v);
  if (v instanceof Date) return formatTime(v);
  if (typeof v === 'object' && 'toString' in v) return String(v);
  return v;
}

/**
 * Engines return time values as Date (wall clock read as UTC: @duckdb/node-api, or pg with the
 * timestamp parser set to UTC) or as text (`2024-01-01 00:00:00`, pg's raw form).
 */
export function formatTime(v: unknown): string | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString().slice(0, 23);
  const s = String(v);
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?)?/.exec(s);
  if (!m) return s;
  const time = (m[2] ?? '00:00:00').padEnd(8, ':00');
  const ms = (m[3] ?? '').slice(0, 3).padEnd(3, '0');
  return `${m[1]}T${time}.${ms}`;
}
