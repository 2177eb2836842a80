import type { CubeQuery } from '@tessera/semantic';
import type { CodeWithStatus } from '../../errors/catalogue.ts';
import { ValidationError } from '../../errors/domain-errors.ts';
import { type Filter, filterValues, type Grain } from './semantic-query.ts';

/**
 * Dashboard filters and time grains on a SQL-API widget (a report whose query is `/v1/cubesql`
 * text). The hosted product runs such a report as "the report's own query with the dashboard's
 * filters and time grains already applied" (reference platform-api.yaml, the embed Python run),
 * and a dashboard control names a model member (spec 2.5, `Orders.status`), so:
 * - a filter applies where its member is in the SQL's projection: an output column that is that
 *   member as is (`SELECT status ... FROM orders` projects `orders.status`), or an output column
 *   named exactly like the filter's `member`. It is applied by wrapping,
 *   `SELECT * FROM (<report SQL>) AS tessera_widget WHERE ...`: filtering the groups of a grouped
 *   query on one of its own keys gives the rows filtering before grouping gives. The wrapped text
 *   is planned by the SQL API like any other, so the viewer's policies still apply inside;
 * - a time grain applies where the SQL groups its member by `DATE_TRUNC('<unit>', <member>)`: the
 *   unit is replaced and the text planned again;
 * - a filter on a model member the projection lacks, a date range (the projection holds the
 *   member truncated, if at all) or an operator the wrapper cannot express is not applied, and the
 *   answer says so in `notApplied`, so that a viewer shows it rather than silently ignoring it.
 *   A member that is neither a model member nor a column is still a 400 naming it.
 */

/** Operators applied on an output column: comparisons and text matches every dialect plans. */
const sqlOperators = new Set([
  'equals',
  'notEquals',
  'in',
  'notIn',
  'gt',
  'gte',
  'lt',
  'lte',
  'set',
  'notSet',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
]);

export interface NotApplied {
  kind: 'filter' | 'timeGrain';
  member: string;
  reason: string;
}

/** What the planned report SQL tells about its projection (from the SQL API's plan). */
export interface Projection {
  columns: readonly { name: string; memberType: string | null }[];
  semantic: readonly { query: CubeQuery }[];
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

function bad(field: string, message: string, code: CodeWithStatus<400>) {
  return new ValidationError(message, [{ field, message }], code);
}

/** The output column that is `member`: named as the filter says, or the member itself projected as is. */
export function projectedColumn(member: string, projection: Projection): string | null {
  if (projection.columns.some((c) => c.name === member)) return member;
  const short = member.slice(member.lastIndexOf('.') + 1);
  const grouped = projection.semantic.some(
    (p) =>
      p.query.dimensions?.includes(member) ||
      p.query.timeDimensions?.some((t) => t.dimension === member && t.granularity === undefined),
  );
  if (!grouped) return null;
  return projection.columns.find((c) => c.name === short && c.memberType !== null)?.name ?? null;
}

/**
 * The report SQL with the time grains replaced where it truncates their member: for each grain
 * whose member the SQL groups by at another unit, `DATE_TRUNC('<unit>', <member column>)` gets the
 * new unit. `grainOf` is read again by the caller on the re-planned text to confirm.
 */
export function regrain(sql: string, grains: readonly Grain[], projection: Projection): string {
  let text = sql;
  for (const g of grains) {
    const current = groupedGrain(g.member, projection);
    if (current === null || current === g.grain) continue;
    const short = g.member.slice(g.member.lastIndexOf('.') + 1).toLowerCase();
    text = text.replace(
      /date_trunc\(\s*'(\w+)'\s*,\s*([\w".]+)\s*\)/gi,
      (whole, unit: string, arg: string) => {
        const name = arg.split('.').pop()?.replaceAll('"', '').toLowerCase();
        return unit.toLowerCase() === current && name === short ? `DATE_TRUNC('${g.grain}', ${arg})` : whole;
      },
    );
  }
  return text;
}

/** The granularity the planned SQL groups `member` by, or null when it does not. */
export function groupedGrain(member: string, projection: Projection): string | null {
  for (const p of projection.semantic)
    for (const t of p.query.timeDimensions ?? [])
      if (t.dimension === member && t.granularity !== undefined) return t.granularity;
  return null;
}

/**
 * The report SQL wrapped with the filters that apply, and those that do not. `members` are the
 * model's members the viewer can see: a filter naming neither one of them nor an output column is
 * a 400 `unknown_column`.
 */
export function wrapSql(
  sql: string,
  filters: readonly Filter[],
  projection: Projection,
  members: ReadonlySet<string>,
): { sql: string; notApplied: NotApplied[] } {
  const conditions: string[] = [];
  const notApplied: NotApplied[] = [];
  filters.forEach((f, i) => {
    const field = `body/filters/${i}`;
    const column = projectedColumn(f.member, projection);
    if (column === null) {
      if (!members.has(f.member)) {
        throw bad(
          `${field}/member`,
          `${f.member} is neither a member of the model nor an output column of this SQL-API widget (${projection.columns.map((c) => c.name).join(', ')})`,
          'unknown_column',
        );
      }
      notApplied.push({ kind: 'filter', member: f.member, reason: "not in this widget's SQL projection" });
      return;
    }
    const operator: string = f.operator ?? 'equals';
    if (!sqlOperators.has(operator)) {
      notApplied.push({
        kind: 'filter',
        member: f.member,
        reason: `${operator} is not applied to SQL-API widgets`,
      });
      return;
    }
    conditions.push(condition(f, operator, column, field));
  });
  if (conditions.length === 0) return { sql, notApplied };
  const inner = sql.trim().replace(/;+\s*$/, '');
  return {
    sql: `SELECT * FROM (${inner}) AS tessera_widget WHERE ${conditions.join(' AND ')}`,
    notApplied,
  };
}

function condition(f: Filter, operator: string, name: string, field: string): string {
  const column = ident(name);
  if (operator === 'set') return `${column} IS NOT NULL`;
  if (operator === 'notSet') return `${column} IS NULL`;
  const values = filterValues(f);
  if (values.length === 0) {
    throw bad(
      `${field}/value`,
      `Filter on ${f.member} needs a value for ${operator}`,
      'invalid_dashboard_filter',
    );
  }
  const fuzzy = operator === 'contains' || operator === 'notContains' || operator.endsWith('With');
  // Cube's semantics, as on semantic widgets: exact operators are case-sensitive, the contains
  // family is not (semantic-query.ts).
  if (f.caseSensitive === false && !fuzzy) {
    throw bad(
      `${field}/caseSensitive`,
      `${operator} is case-sensitive; use contains for ${f.member}`,
      'invalid_dashboard_filter',
    );
  }
  if (f.caseSensitive === true && fuzzy) {
    throw bad(
      `${field}/caseSensitive`,
      `${operator} is case-insensitive (${f.member})`,
      'invalid_dashboard_filter',
    );
  }
  if (fuzzy) {
    // The value is text to find, never a pattern: `%` and `_` in it are literal, as Cube escapes
    // them (packages/semantic planner/filters.ts, escapeLike). Positions rather than LIKE, since
    // DuckDB's LIKE has no default escape character.
    const lower = `LOWER(${column})`;
    const match = (v: string) => {
      const text = `LOWER(${literal(v)})`;
      if (operator === 'startsWith') return `STRPOS(${lower}, ${text}) = 1`;
      if (operator === 'endsWith') return `RIGHT(${lower}, LENGTH(${text})) = ${text}`;
      return `STRPOS(${lower}, ${text}) > 0`;
    };
    const any = values.map(match).join(' OR ');
    return operator === 'notContains' ? `(NOT (${any}) OR ${column} IS NULL)` : `(${any})`;
  }
  const list = values.map(literal).join(', ');
  // Cube's notEquals keeps NULLs; do the same so both widget kinds filter alike.
  if (operator === 'equals' || operator === 'in') return `${column} IN (${list})`;
  if (operator === 'notEquals' || operator === 'notIn')
    return `(${column} NOT IN (${list}) OR ${column} IS NULL)`;
  const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator as 'gt'];
  return `${column} ${op} ${literal(values[0])}`;
}
