/**
 * A report's Vega-Lite spec (spec 2.3 `reportSnapshots[].spec`) made ready for a widget's rows,
 * shared by the web viewer (and Explore) and the server's renderer, so that a chart reads the
 * same on the page and in an emailed image.
 */

/** A result row: member names (with dots) to values. */
type Row = Record<string, unknown>;

/** The time grains a dashboard control or a notification may set (spec 2.5). */
export const grains = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Grain = (typeof grains)[number];

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

/** How a time axis and a tooltip label a value truncated to each grain (d3-time-format). */
export const grainFormats: Record<Grain, string> = {
  second: '%Y-%m-%d %H:%M:%S',
  minute: '%Y-%m-%d %H:%M',
  hour: '%b %d, %H:00',
  day: '%b %d, %Y',
  week: '%b %d, %Y',
  month: '%b %Y',
  quarter: 'Q%q %Y',
  year: '%Y',
};
/**
 * Ticks one per period for the coarse grains, so that quarterly points get quarter ticks rather
 * than whatever Vega would pick for the span. Finer grains keep Vega's own ticks (a tick per day
 * over three years would be a thousand); weeks too, as Vega's weeks start on Sunday and the data
 * API's on Monday.
 */
const grainTicks: Partial<Record<Grain, { interval: 'month' | 'year'; step: number }>> = {
  month: { interval: 'month', step: 1 },
  quarter: { interval: 'month', step: 3 },
  year: { interval: 'year', step: 1 },
};

/** Vega-Lite reads a dot in a field as nested access; member names are `cube.member`. */
export const escapeField = (name: string) => name.replaceAll('.', '\\.');
const unescapeField = (field: string) => field.replaceAll('\\.', '.');

/**
 * The report's Vega-Lite spec made ready for these rows:
 * - a field names a result column; row keys are member names with dots, which Vega-Lite would read
 *   as nested properties, so a field equal to a column (escaped or not) is escaped;
 * - a time-grain override renames the time column (`orders.created_at.month` becomes
 *   `orders.created_at.week`), so fields on that member follow, and a `timeUnit` on them becomes the
 *   new grain's;
 * - a temporal field on a time column without a `timeUnit` of its own is labelled at the column's
 *   grain: axis labels (and ticks, for months, quarters and years) and tooltips follow the grain
 *   drawn, the override's when there is one, rather than the published one's or Vega's guess;
 * - the rows go in as inline data (the spec holds none), as copies.
 */
export function chartSpec(
  spec: Record<string, unknown>,
  rows: Row[],
  columns: readonly string[],
  grains: Readonly<Record<string, Grain>>,
): Record<string, unknown> {
  // Copies: Vega parses values in place (dates become Date objects), and the tile's CSV and table
  // read the same rows.
  return { ...preparedSpec(spec, columns, grains), data: { values: rows.map((row) => ({ ...row })) } };
}

/**
 * `chartSpec` without the rows: the spec's fields, grains and labels made ready for rows with
 * these columns, and no `data` (the server's renderer gives vega the rows as a named dataset).
 */
export function preparedSpec(
  spec: Record<string, unknown>,
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
      const shown = grain ?? (grainSuffix.exec(unescapeField(field))?.[1] as Grain | undefined);
      if (shown && out.type === 'temporal' && out.timeUnit === undefined && known.has(unescapeField(field)))
        labelAtGrain(out, key, shown, grain !== undefined);
    }
    return out;
  };
  // (x and y channels carry an axis; a tooltip's entries are walked without a channel key)
  return walk(spec) as Record<string, unknown>;
}

/**
 * Labels a temporal encoding at `grain`: an x or y channel's axis format and ticks, a tooltip
 * entry's format. The spec's own choices stay unless the grain was overridden, when they would
 * describe the published grain.
 */
function labelAtGrain(
  encoding: Record<string, unknown>,
  channel: string | undefined,
  grain: Grain,
  overridden: boolean,
) {
  if (channel === 'x' || channel === 'y') {
    if (encoding.axis === null) return;
    const axis = { ...((encoding.axis as Record<string, unknown> | undefined) ?? {}) };
    if (overridden || axis.format === undefined) axis.format = grainFormats[grain];
    const ticks = grainTicks[grain];
    if (overridden) delete axis.tickCount;
    if (ticks && axis.tickCount === undefined && axis.values === undefined) axis.tickCount = ticks;
    encoding.axis = axis;
  } else if (channel === undefined || channel === 'tooltip') {
    if (overridden || encoding.format === undefined) encoding.format = grainFormats[grain];
  }
}

const grainWords: Record<Grain, readonly string[]> = {
  second: ['second', 'per second'],
  minute: ['minute', 'per minute'],
  hour: ['hour', 'hourly'],
  day: ['day', 'daily'],
  week: ['week', 'weekly'],
  month: ['month', 'monthly'],
  quarter: ['quarter', 'quarterly'],
  year: ['year', 'yearly'],
};

/**
 * A widget's title at the grain it is drawn at: "Order amount by month" grouped by quarter reads
 * "Order amount by quarter", "Monthly orders" reads "Quarterly orders". A title that names no
 * grain is kept as it is.
 */
export function titleAtGrain(title: string, published: Grain | null, shown: Grain | null): string {
  if (!published || !shown || published === shown) return title;
  const [noun, adjective] = grainWords[published];
  const [toNoun, toAdjective] = grainWords[shown];
  const swap = (text: string, from: string, to: string) =>
    text.replace(new RegExp(`\\b${from}\\b`, 'gi'), (found) =>
      found[0] === found[0].toUpperCase() ? to[0].toUpperCase() + to.slice(1) : to,
    );
  return swap(swap(title, adjective, toAdjective), noun, toNoun);
}

/**
 * The grain each time member's rows are at: a semantic answer says it in its query as run; a SQL
 * one was asked for `asked` (the request's `timeGrains`).
 */
export function shownGrains(
  answer: { kind: 'semantic' | 'sql'; query?: unknown } | undefined,
  asked: readonly { member: string; grain: Grain }[],
): Record<string, Grain> {
  if (answer?.kind === 'semantic') {
    const run = answer.query as { timeDimensions?: { dimension: string; granularity?: string }[] } | null;
    return Object.fromEntries(
      (run?.timeDimensions ?? [])
        .filter((t) => t.granularity !== undefined)
        .map((t) => [t.dimension, t.granularity as Grain]),
    );
  }
  return Object.fromEntries(asked.map((g) => [g.member, g.grain]));
}

/**
 * A widget's title at the grains its rows are at: its report's query's first time dimension with
 * a grain is the one a title may name (see titleAtGrain).
 */
export function widgetTitleAtGrains(
  title: string,
  query:
    | { timeDimensions?: readonly { dimension: string; granularity?: string | null }[] }
    | null
    | undefined,
  grains: Readonly<Record<string, Grain>>,
): string {
  const published = (query?.timeDimensions ?? []).find((t) => t.granularity != null);
  if (!published?.granularity) return title;
  const grain = published.granularity as Grain;
  return titleAtGrain(title, grain, grains[published.dimension] ?? grain);
}
