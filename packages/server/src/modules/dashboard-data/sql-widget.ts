import type { CodeWithStatus } from '../../errors/catalogue.ts';
import { ValidationError } from '../../errors/domain-errors.ts';
import { type Filter, filterValues, type Grain } from './semantic-query.ts';

/** Operators a SQL-API widget can be filtered with: plain comparisons the SQL API plans everywhere. */
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
]);

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

function bad(field: string, message: string, code: CodeWithStatus<400>) {
  return new ValidationError(message, [{ field, message }], code);
}

/**
 * A SQL-API widget (a report whose query is `/v1/cubesql` text) has no members to re-grain or to
 * join a filter on, so (documented choice):
 * - time-grain overrides are refused with 400 `time_grain_unsupported`: the grain is in the
 *   report's SQL text and cannot be changed from outside;
 * - filters are applied by wrapping, `SELECT * FROM (<report SQL>) AS tessera_widget WHERE ...`,
 *   on the widget's OUTPUT columns: a filter's `member` must name one exactly (400
 *   `unknown_column` otherwise). The wrapped text is planned by the SQL API like any other, so the
 *   viewer's policies still apply to the inner SELECTs over cubes. Only the comparisons above are
 *   supported (400 `operator_unsupported` names any other).
 */
export function wrapSql(sql: string, filters: Filter[], grains: Grain[], columns: readonly string[]): string {
  if (grains.length > 0) {
    throw bad(
      'body/timeGrains',
      'Time-grain overrides need a semantic (Cube query) widget; this widget is SQL-API text',
      'time_grain_unsupported',
    );
  }
  if (filters.length === 0) return sql;
  const conditions = filters.map((f, i) => condition(f, i, columns));
  const inner = sql.trim().replace(/;+\s*$/, '');
  return `SELECT * FROM (${inner}) AS tessera_widget WHERE ${conditions.join(' AND ')}`;
}

function condition(f: Filter, i: number, columns: readonly string[]): string {
  const field = `body/filters/${i}`;
  if (!columns.includes(f.member)) {
    throw bad(
      `${field}/member`,
      `SQL-API widgets are filtered on their output columns (${columns.join(', ')}); ${f.member} is not one`,
      'unknown_column',
    );
  }
  const operator: string = f.operator ?? 'equals';
  if (!sqlOperators.has(operator)) {
    throw bad(`${field}/operator`, `${operator} is not supported on SQL-API widgets`, 'operator_unsupported');
  }
  const column = ident(f.member);
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
  if (f.caseSensitive === false) {
    throw bad(
      `${field}/caseSensitive`,
      `${operator} on a SQL-API widget is case-sensitive`,
      'invalid_dashboard_filter',
    );
  }
  const list = values.map(literal).join(', ');
  // Cube's notEquals keeps NULLs; do the same so both widget kinds filter alike.
  if (operator === 'equals' || operator === 'in') return `${column} IN (${list})`;
  if (operator === 'notEquals' || operator === 'notIn')
    return `(${column} NOT IN (${list}) OR ${column} IS NULL)`;
  const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator as 'gt'];
  return `${column} ${op} ${literal(values[0])}`;
}
