import { athena } from './dialect/athena.ts';
import { bigquery } from './dialect/bigquery.ts';
import { clickhouse } from './dialect/clickhouse.ts';
import { databricks } from './dialect/databricks.ts';
import type { Dialect, DialectName } from './dialect/dialect.ts';
import { duckdb } from './dialect/duckdb.ts';
import { mysql } from './dialect/mysql.ts';
import { postgres } from './dialect/postgres.ts';
import { presto } from './dialect/presto.ts';
import { type CompiledSql, printSelect } from './dialect/print.ts';
import { redshift } from './dialect/redshift.ts';
import { snowflake } from './dialect/snowflake.ts';
import { trino } from './dialect/trino.ts';
import { UserError } from './errors.ts';
import type { Model } from './model/types.ts';
import { planQuery } from './planner/plan.ts';
import { normalizeFilter } from './query/filters.ts';
import { normalizeQuery } from './query/normalize.ts';
import { formatLocal } from './query/time.ts';
import type { CubeQuery, FilterNode, ResolvedQuery } from './query/types.ts';
import { type Annotation, buildAnnotation, memberType } from './result/annotation.ts';
import { type OutputColumn, outputColumns } from './result/format.ts';
import { resolveAccess } from './security/access.ts';
import type { SecurityContext } from './security/context.ts';

export const DIALECTS: Readonly<Record<DialectName, Dialect>> = {
  duckdb,
  postgres,
  mysql,
  trino,
  snowflake,
  redshift,
  presto,
  databricks,
  clickhouse,
  athena,
  bigquery,
};

export interface CompileQueryOptions {
  readonly dialect: DialectName | Dialect;
  /** Required: no query compiles without its access policies applied. Pass `{}` for none. */
  readonly securityContext: SecurityContext;
  /** Current time for relative date ranges; defaults to the clock. */
  readonly now?: Date | number;
  /** Cube's option: ungrouped queries need not name every joined cube's primary key. */
  readonly allowUngroupedWithoutPrimaryKey?: boolean;
  /** Multiplied measures over distinct keys only (planner/plan.ts PlanOptions.distinctKeysOnly). */
  readonly distinctKeysOnly?: boolean;
}

export interface CompiledQuery extends CompiledSql {
  /** Count of all rows without limit/offset, when the query asked for `total`. */
  readonly totalSql: CompiledSql | null;
  /** Columns in select order: alias and the response keys it fills. */
  readonly columns: readonly OutputColumn[];
  /** SQL alias -> member key (`orders__created_at_month` -> `orders.created_at.month`). */
  readonly aliases: Readonly<Record<string, string>>;
  readonly annotation: Annotation;
  /** The query with Cube's defaults applied (order, limit, timezone), as Cube echoes it. */
  readonly normalizedQuery: CubeQuery;
  readonly resolved: ResolvedQuery;
}

/** The query's "now" in epoch milliseconds (relative date ranges, current-time policies). */
export function nowMillis(options: Pick<CompileQueryOptions, 'now'>): number {
  if (options.now === undefined) return Date.now();
  return typeof options.now === 'number' ? options.now : options.now.getTime();
}

export function compileQuery(model: Model, query: CubeQuery, options: CompileQueryOptions): CompiledQuery {
  if (typeof options?.securityContext !== 'object' || options.securityContext === null) {
    throw new TypeError('compileQuery needs a securityContext (use {} for an anonymous context)');
  }
  const dialect = typeof options.dialect === 'string' ? DIALECTS[options.dialect] : options.dialect;
  if (!dialect) throw new TypeError(`Unknown dialect: ${String(options.dialect)}`);
  const now = nowMillis(options);
  const access = resolveAccess(model, options.securityContext);
  const resolved = normalizeQuery(model, query, { access, now });
  const cubeSecurity = (cube: string): FilterNode | null => {
    const f = access.rowFilters.get(cube);
    if (f === undefined) return null;
    if (f === false) return { kind: 'deny' };
    return normalizeFilter(f, { model, access, timezone: resolved.timezone, now, trusted: true });
  };
  const plan = planQuery(model, resolved, cubeSecurity, {
    now,
    allowUngroupedWithoutPrimaryKey:
      options.allowUngroupedWithoutPrimaryKey === true || query.allowUngroupedWithoutPrimaryKey === true,
    distinctKeysOnly: options.distinctKeysOnly === true,
    securityContext: options.securityContext,
  });
  const printed = printSelect(plan.select, dialect);
  const columns = outputColumns(plan.columns, (c) => (yieldsTime(c.member) ? 'time' : memberType(c.member)));
  return {
    ...printed,
    totalSql: plan.total ? printSelect(plan.total, dialect) : null,
    columns,
    aliases: Object.fromEntries(plan.columns.map((c) => [c.alias, c.key])),
    annotation: buildAnnotation(model, resolved, plan.columns),
    normalizedQuery: normalized(query, resolved),
    resolved,
  };
}

function normalized(query: CubeQuery, r: ResolvedQuery): CubeQuery {
  const { renewQuery: _renew, allowUngroupedWithoutPrimaryKey: _allow, ...rest } = query;
  return {
    ...rest,
    measures: r.measures.map((m) => m.path),
    dimensions: r.dimensions.map((d) => d.path),
    segments: r.segments.map((s) => s.path),
    timeDimensions: r.timeDimensions.map((t) => ({
      dimension: t.member.path,
      ...(t.granularity ? { granularity: t.granularity } : {}),
      ...(t.dateRange ? { dateRange: [formatLocal(t.dateRange.from), formatLocal(t.dateRange.to)] } : {}),
    })),
    filters: query.filters ?? [],
    order: r.order.map((o) => [o.id, o.desc ? 'desc' : 'asc'] as const),
    limit: r.limit,
    timezone: r.timezone,
    ...(r.offset ? { offset: r.offset } : {}),
  };
}

/**
 * `compareDateRange` (Cube's "compare date range" queries) becomes one query per range; the
 * data API answers them as `queryType: "compareDateRangeQuery"` results.
 */
export function expandCompareDateRange(query: CubeQuery): CubeQuery[] {
  const tds = query.timeDimensions ?? [];
  const index = tds.findIndex((t) => t.compareDateRange !== undefined);
  if (index < 0) return [query];
  const ranges = tds[index].compareDateRange;
  if (!Array.isArray(ranges) || ranges.length === 0)
    throw new UserError('compareDateRange must be a non-empty array of date ranges');
  return ranges.map((dateRange) => ({
    ...query,
    timeDimensions: tds.map((t, i) => {
      if (i !== index) return t;
      const { compareDateRange: _c, ...rest } = t;
      return { ...rest, dateRange };
    }),
  }));
}

export function compileQueries(
  model: Model,
  query: CubeQuery,
  options: CompileQueryOptions,
): CompiledQuery[] {
  return expandCompareDateRange(query).map((q) => compileQuery(model, q, options));
}

/**
 * A dimension whose SQL is only `{created_at.half_year}` or `{SQL_UTILS.convertTz(...)}` holds a
 * timestamp whatever type it declares (Cube's proxied granularity is a `string`): its values are
 * written as time values, alike on every engine (PostgreSQL hands timestamps over as text).
 */
function yieldsTime(m: ResolvedQuery['dimensions'][number]): boolean {
  const member = m.member;
  if (member.kind !== 'dimension' || member.sql.length !== 1) return false;
  const part = member.sql[0];
  return typeof part !== 'string' && (part.ref === 'granularity' || part.ref === 'convertTz');
}
