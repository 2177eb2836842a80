import type { ServiceSqlApiResult } from '../types.ts';
import type { CatalogMember } from './catalog.ts';
import { formatFigure, formatNumber, joinWords, numberOf, percentChange } from './format.ts';
import type { QueryPlan } from './resolve.ts';
import type { BuiltQuery, OutputColumn } from './sql.ts';
import { type Period, unitLabel } from './time.ts';

/** Items an answer lists before summing up the rest. */
const LISTED = 10;
/** Measure types whose values add up across rows (a total of groups is meaningful). */
const ADDITIVE = new Set(['count', 'sum']);

type Row = (string | null)[];

/**
 * The answer in words: the figures (formatted), the period, the filters, the top items, and what
 * was left out. Every number comes from the result rows; nothing is estimated.
 */
export function writeAnswer(plan: QueryPlan, query: BuiltQuery, result: ServiceSqlApiResult): string {
  const at = (c: OutputColumn) => query.columns.indexOf(c);
  const measures = query.columns.filter((c) => c.role === 'measure');
  const groups = query.columns.filter((c) => c.role === 'category');
  const time = query.columns.find((c) => c.role === 'time') ?? null;
  const rows = result.data;
  const scope = scopeText(plan);
  const lines: string[] = [];
  const label = (row: Row) => groups.map((g) => row[at(g)] ?? '(empty)').join(', ');
  const timeLabel = (row: Row) =>
    time && plan.time?.granularity ? timeValueLabel(row[at(time)], plan.time.granularity) : '';
  const figures = (row: Row) =>
    measures.length === 1
      ? figure(row[at(measures[0])], measures[0].member)
      : measures.map((m) => `${measureName(m.member)} ${figure(row[at(m)], m.member)}`).join(', ');
  const what = joinWords(measures.map((m) => measureName(m.member)));

  if (rows.length === 0) {
    lines.push(`No data matched: ${what}${scope ? ` ${scope}` : ''} has no rows.`);
  } else if (!time && groups.length === 0) {
    for (const m of measures)
      lines.push(
        `${measureName(m.member)}${scope ? ` ${scope}` : ''}: **${figure(rows[0][at(m)], m.member)}**.`,
      );
  } else if (plan.compare && time) {
    const by = groups.length > 0 ? ` by ${joinWords(groups.map((g) => groupTitle(g.member)))}` : '';
    lines.push(
      `${what}${by}${scope ? ` ${scope}` : ''}, ${joinWords(plan.compare.map((p) => p.label))} compared:`,
    );
    const byGroup = groupRows(rows, label);
    const [before, after] = plan.compare;
    for (const [name, list] of [...byGroup].slice(0, LISTED)) {
      const values = plan.compare.map((p) => list.find((r) => samePeriod(r[at(time)], p)) ?? null);
      const change =
        values[0] && values[1]
          ? changeText(values[0][at(measures[0])], values[1][at(measures[0])], measures[0].member)
          : '';
      if (groups.length > 0) {
        const parts = plan.compare.map((p, i) => `${p.label} ${values[i] ? figures(values[i]) : 'no data'}`);
        lines.push(`- ${name}: ${parts.join(', ')}${change ? `; change ${change}` : ''}`);
      } else {
        lines.push(
          ...plan.compare.map((p, i) => `- ${p.label}: **${values[i] ? figures(values[i]) : 'no data'}**`),
        );
        if (change) lines.push(`Change from ${before.label} to ${after.label}: ${change}.`);
      }
    }
  } else if (time && groups.length === 0) {
    lines.push(
      ...seriesLines(
        rows,
        timeLabel,
        figures,
        measures,
        at,
        `${what} by ${plan.time?.granularity}${scope ? ` ${scope}` : ''}`,
      ),
    );
  } else if (time) {
    const byGroup = groupRows(rows, label);
    lines.push(
      `${what} by ${plan.time?.granularity} for each ${joinWords(groups.map((g) => groupTitle(g.member)))}${scope ? ` ${scope}` : ''}:`,
    );
    for (const [name, list] of [...byGroup].slice(0, LISTED)) {
      const first = list[0];
      const last = list[list.length - 1];
      lines.push(
        `- ${name}: ${figures(first)} in ${timeLabel(first)}, ${figures(last)} in ${timeLabel(last)}${totalText(list, measures, at)}`,
      );
    }
    if (byGroup.size > LISTED)
      lines.push(`- and ${byGroup.size - LISTED} more (see the chart and the data).`);
  } else {
    const ranked = plan.top
      ? `${plan.top.order === 'asc' ? 'Bottom' : 'Top'} ${Math.min(plan.top.n, rows.length)} `
      : '';
    const by = joinWords(groups.map((g) => groupTitle(g.member)));
    if (plan.top?.n === 1 && rows.length === 1) {
      const extreme = plan.top.order === 'asc' ? 'lowest' : 'highest';
      return [
        `The ${by} with the ${extreme} ${what}${scope ? ` ${scope}` : ''} is **${label(rows[0])}** (${figures(rows[0])}).`,
        ...plan.notes,
      ].join('\n');
    }
    lines.push(
      plan.top
        ? `${ranked}${by} by ${what}${scope ? ` ${scope}` : ''}:`
        : `${what} by ${by}${scope ? ` ${scope}` : ''}:`,
    );
    lines.push(...rows.slice(0, LISTED).map((row, i) => `${i + 1}. ${label(row)}: ${figures(row)}`));
    if (result.totalRows > LISTED)
      lines.push(`- and ${result.totalRows - LISTED} more (see the chart and the data).`);
    else if (rows.length > 1 && !plan.top && totalText(rows, measures, at))
      lines.push(`Together: ${totalText(rows, measures, at, true)}`);
  }
  if (result.totalRows > rows.length)
    lines.push(
      `(The result has ${formatNumber(result.totalRows)} rows; the first ${rows.length} are shown.)`,
    );
  lines.push(...plan.notes);
  return lines.filter(Boolean).join('\n');
}

function seriesLines(
  rows: readonly Row[],
  timeLabel: (r: Row) => string,
  figures: (r: Row) => string,
  measures: readonly OutputColumn[],
  at: (c: OutputColumn) => number,
  heading: string,
): string[] {
  if (rows.length <= 12) {
    return [
      `${heading}:`,
      ...rows.map((r) => `- ${timeLabel(r)}: ${figures(r)}`),
      totalLine(rows, measures, at),
    ];
  }
  const first = measures[0];
  const sorted = [...rows].sort((a, b) => (numberOf(b[at(first)]) ?? 0) - (numberOf(a[at(first)]) ?? 0));
  return [
    `${heading}: ${rows.length} points from ${timeLabel(rows[0])} to ${timeLabel(rows[rows.length - 1])}.`,
    `- Highest: ${timeLabel(sorted[0])} (${figures(sorted[0])})`,
    `- Lowest: ${timeLabel(sorted[sorted.length - 1])} (${figures(sorted[sorted.length - 1])})`,
    `- Latest: ${timeLabel(rows[rows.length - 1])} (${figures(rows[rows.length - 1])})`,
    totalLine(rows, measures, at),
  ];
}

function totalLine(
  rows: readonly Row[],
  measures: readonly OutputColumn[],
  at: (c: OutputColumn) => number,
): string {
  const text = totalText(rows, measures, at, true);
  return text ? `Total over the period: ${text}` : '';
}

/** The sum of additive measures over these rows ("; total 1,234"), or nothing for averages and ratios. */
function totalText(
  rows: readonly Row[],
  measures: readonly OutputColumn[],
  at: (c: OutputColumn) => number,
  bare = false,
): string {
  const parts = measures
    .filter((m) => ADDITIVE.has(m.member.aggType ?? ''))
    .map((m) => {
      const sum = rows.reduce((s, r) => s + (numberOf(r[at(m)]) ?? 0), 0);
      return measures.length === 1
        ? `**${formatFigure(sum, m.member.format)}**`
        : `${measureName(m.member)} **${formatFigure(sum, m.member.format)}**`;
    });
  if (parts.length === 0) return '';
  return bare ? `${parts.join(', ')}.` : `; total ${parts.join(', ')}`;
}

function groupRows(rows: readonly Row[], key: (r: Row) => string): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const r of rows) {
    const k = key(r);
    out.set(k, [...(out.get(k) ?? []), r]);
  }
  return out;
}

function changeText(before: string | null, after: string | null, member: CatalogMember): string {
  const a = numberOf(before);
  const b = numberOf(after);
  if (a === null || b === null) return '';
  const pct = percentChange(a, b);
  const diff = b - a;
  return `${diff >= 0 ? '+' : '-'}${formatFigure(Math.abs(diff), member.format)}${pct ? ` (${pct})` : ''}`;
}

/** A measure's value in its format (currency, percent), else as a plain number. */
function figure(value: string | null | undefined, member: CatalogMember): string {
  const n = numberOf(value);
  return n === null ? 'no value' : formatFigure(n, member.format);
}

/** A cube's label column ("by product" groups by `products.name`) is named after the cube. */
function groupTitle(m: CatalogMember): string {
  return ['name', 'title', 'label'].includes(m.field) ? m.owner.title : m.title;
}

/** A count is named after what it counts: "Number of Orders", not "Count". */
export function measureName(m: CatalogMember): string {
  return m.field === 'count' && /^count$/i.test(m.title) ? `Number of ${m.owner.title}` : m.title;
}

/** The period and filters of a plan, as a phrase: "in 2024, where Country is France (FR)". */
export function scopeText(plan: QueryPlan): string {
  const parts: string[] = [];
  const range = plan.compare ? null : plan.range;
  if (range)
    parts.push(
      range.unit === 'day'
        ? `on ${range.label}`
        : range.unit || range.label.startsWith('the ')
          ? `in ${range.label}`
          : range.label,
    );
  const conditions = [...plan.filters.map((f) => f.label), ...plan.segments.map((s) => `${s.title} only`)];
  if (conditions.length > 0) parts.push(`where ${joinWords(conditions)}`);
  return parts.join(', ');
}

function parseTime(value: string | null): Date | null {
  if (!value) return null;
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

function timeValueLabel(
  value: string | null,
  unit: NonNullable<QueryPlan['time']>['granularity'] & string,
): string {
  const d = parseTime(value);
  return d ? unitLabel(unit, d) : '(no date)';
}

function samePeriod(value: string | null, p: Period): boolean {
  const d = parseTime(value);
  return d !== null && p.start !== null && d.getTime() === p.start.getTime();
}
