import type { ChartColumn } from '../../chart.ts';
import type { CatalogMember, CatalogOwner } from './catalog.ts';
import type { PlanFilter, QueryPlan } from './resolve.ts';
import { isoDate, type Period } from './time.ts';

/** A column of the generated query and the member behind it. */
export interface OutputColumn {
  readonly name: string;
  readonly member: CatalogMember;
  readonly role: ChartColumn['role'];
}

export interface BuiltQuery {
  readonly sql: string;
  readonly columns: readonly OutputColumn[];
}

/**
 * SQL-API text for a plan, in the subset the translator plans (packages/semantic/src/sql-api):
 * one SELECT over a cube or view (or cubes joined with `__cubeJoinField`), `MEASURE(x)` for
 * measures, `DATE_TRUNC('unit', time)` for granularity, WHERE with plain comparisons, IN and
 * segments as boolean columns, GROUP BY positions, ORDER BY, LIMIT.
 */
export function buildSql(plan: QueryPlan): BuiltQuery {
  const used = [
    ...plan.groups,
    ...(plan.time ? [plan.time.member] : []),
    ...plan.measures,
    ...plan.filters.map((f) => f.member),
    ...plan.segments,
  ];
  const tables = [...new Set(used.map((m) => m.owner))];
  const alias = new Map<CatalogOwner, string>(tables.map((t, i) => [t, tables.length > 1 ? `t${i}` : '']));
  const ref = (m: CatalogMember) => {
    const a = alias.get(m.owner)!;
    return a ? `${a}.${ident(m.field)}` : ident(m.field);
  };

  const columns: OutputColumn[] = [];
  const names = new Set<string>();
  const output = (wanted: string, member: CatalogMember, role: OutputColumn['role']) => {
    let name = wanted;
    for (let i = 2; names.has(name); i++) name = `${wanted}_${i}`;
    names.add(name);
    columns.push({ name, member, role });
    return name;
  };
  const select: string[] = [];
  const as = (expression: string, name: string) =>
    expression === ident(name) ? expression : `${expression} AS ${ident(name)}`;
  for (const g of plan.groups) select.push(as(ref(g), output(g.field, g, 'category')));
  const granularity = plan.time?.granularity ?? null;
  if (plan.time && granularity)
    select.push(
      `DATE_TRUNC('${granularity}', ${ref(plan.time.member)}) AS ${ident(output(granularity, plan.time.member, 'time'))}`,
    );
  const dimensionCount = select.length;
  for (const m of plan.measures) select.push(`MEASURE(${ref(m)}) AS ${ident(output(m.field, m, 'measure'))}`);

  const where: string[] = [];
  if (plan.time) {
    const t = ref(plan.time.member);
    if (plan.compare) where.push(`(${plan.compare.map((p) => `(${periodCondition(t, p)})`).join(' OR ')})`);
    else if (plan.range) where.push(periodCondition(t, plan.range));
  }
  for (const f of plan.filters) where.push(filterCondition(ref(f.member), f));
  for (const s of plan.segments) where.push(ref(s));

  const lines = [`SELECT ${select.join(', ')}`, `FROM ${from(tables, alias)}`];
  if (where.length > 0) lines.push(`WHERE ${where.join(' AND ')}`);
  if (dimensionCount > 0)
    lines.push(`GROUP BY ${Array.from({ length: dimensionCount }, (_, i) => i + 1).join(', ')}`);
  const order = orderBy(plan, dimensionCount);
  if (order) lines.push(order);
  return { sql: lines.join('\n'), columns };
}

function orderBy(plan: QueryPlan, dimensionCount: number): string | null {
  if (dimensionCount === 0) return null;
  const groups = plan.groups.length;
  const measure = dimensionCount + 1;
  if (plan.time?.granularity) {
    // time first, then the largest series
    const keys = [`${groups + 1}`, ...(groups > 0 ? [`${measure} DESC`] : [])];
    return `ORDER BY ${keys.join(', ')}`;
  }
  const direction = plan.top?.order === 'asc' ? 'ASC' : 'DESC';
  const limit = plan.top ? `\nLIMIT ${plan.top.n}` : '';
  return `ORDER BY ${measure} ${direction}${limit}`;
}

function from(tables: readonly CatalogOwner[], alias: ReadonlyMap<CatalogOwner, string>): string {
  if (tables.length === 1) return ident(tables[0].name);
  const [first, ...rest] = tables;
  const a0 = alias.get(first)!;
  return [
    `${ident(first.name)} ${a0}`,
    ...rest.map(
      (t) =>
        `JOIN ${ident(t.name)} ${alias.get(t)} ON ${a0}.__cubeJoinField = ${alias.get(t)}.__cubeJoinField`,
    ),
  ].join(' ');
}

function periodCondition(column: string, p: Period): string {
  const parts: string[] = [];
  if (p.start) parts.push(`${column} >= ${literal(timeText(p.start))}`);
  if (p.end) parts.push(`${column} < ${literal(timeText(p.end))}`);
  return parts.join(' AND ');
}

function filterCondition(column: string, f: PlanFilter): string {
  const value = (v: string) => (f.member.type === 'number' ? String(Number(v)) : literal(v));
  switch (f.operator) {
    case 'equals':
      return `${column} = ${value(f.values[0])}`;
    case 'in':
      return `${column} IN (${f.values.map(value).join(', ')})`;
    case 'gt':
      return `${column} > ${value(f.values[0])}`;
    case 'gte':
      return `${column} >= ${value(f.values[0])}`;
    case 'lt':
      return `${column} < ${value(f.values[0])}`;
    case 'lte':
      return `${column} <= ${value(f.values[0])}`;
  }
}

const timeText = (d: Date) => (d.getTime() % 86_400_000 === 0 ? isoDate(d) : d.toISOString().slice(0, 19));

export const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** PostgreSQL reserved words a column or cube may be named after. */
const RESERVED = new Set(
  'all and any as asc between by case cast check column constraint create current_date current_time current_user default desc distinct do else end except false fetch for foreign from grant group having in inner intersect into is join leading left limit not null offset on only or order outer primary references right select session_user some table then to trailing true union unique user using when where window with'.split(
    ' ',
  ),
);

/** Plain names stay bare; anything else is quoted as PostgreSQL does. */
export function ident(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** The query listing one dimension's values (for matching the question's words against them). */
export function valuesSql(dimension: CatalogMember): string {
  return `SELECT ${ident(dimension.field)} FROM ${ident(dimension.owner.name)} GROUP BY 1 ORDER BY 1 LIMIT 100`;
}
