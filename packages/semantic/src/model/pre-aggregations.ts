import { isBuiltInGranularity } from './interval.ts';
import type { MemberContext } from './members.ts';
import { isRecord, memberList, type Raw, snakeCase, str } from './raw.ts';
import { locate } from './reporter.ts';
import type { Dimension, Measure, PreAggregation, SourceLocation } from './types.ts';

/**
 * `pre_aggregations` of one cube (https://cube.dev/docs/product/data-modeling/reference/pre-aggregations).
 * Tessera builds `rollup` only: `original_sql`, `rollup_join` and `rollup_lambda` are refused with
 * a model error naming the pre-aggregation, as are members of other cubes (a rollup over a join)
 * and a partitioned rollup without `build_range_start`/`build_range_end` (its partitions are the
 * periods of that range). Every problem is reported; a bad pre-aggregation is left out.
 */
export function buildPreAggregations(
  raw: Raw,
  ctx: MemberContext,
  measures: ReadonlyMap<string, Measure>,
  dimensions: ReadonlyMap<string, Dimension>,
): Map<string, PreAggregation> {
  const out = new Map<string, PreAggregation>();
  for (const p of memberList(raw.pre_aggregations)) {
    const loc = locate(p, ctx.loc);
    const name = str(p.name);
    const report = (m: string) =>
      ctx.reporter.error(loc, ctx.cube, name, `Pre-aggregation ${ctx.cube}.${name}: ${m}`);
    if (name === null || !/^[A-Za-z_]\w*$/.test(name)) {
      ctx.reporter.error(loc, ctx.cube, null, `Invalid or missing pre-aggregation name: ${String(p.name)}`);
      continue;
    }
    const before = ctx.reporter.errors.length;
    if (out.has(name)) report('is defined twice');
    const type = snakeCase(String(p.type ?? 'rollup'));
    if (type !== 'rollup') {
      report(
        type === 'original_sql' || type === 'rollup_join' || type === 'rollup_lambda'
          ? `type ${type} is not supported; Tessera builds rollup pre-aggregations only`
          : `unknown type '${String(p.type)}'`,
      );
      continue;
    }
    const refs = (key: string, kind: 'measure' | 'dimension'): string[] => {
      const value = p[key];
      if (value === undefined) return [];
      if (!Array.isArray(value)) {
        report(`${key} must be a list of members`);
        return [];
      }
      return value.flatMap((v) => {
        const member = memberName(v, ctx.cube, report);
        if (member === null) return [];
        const found = kind === 'measure' ? measures.get(member) : dimensions.get(member);
        if (!found) report(`${key}: ${ctx.cube} has no ${kind} ${member}`);
        return found ? [member] : [];
      });
    };
    const ms = refs('measures', 'measure');
    const ds = refs('dimensions', 'dimension');
    let timeDimension: string | null = null;
    if (p.time_dimension !== undefined) {
      timeDimension = memberName(p.time_dimension, ctx.cube, report);
      const dim = timeDimension === null ? undefined : dimensions.get(timeDimension);
      if (timeDimension !== null && dim?.type !== 'time')
        report(`time_dimension ${timeDimension} is not a time dimension of ${ctx.cube}`);
    }
    const granularity = str(p.granularity);
    if (timeDimension !== null && (granularity === null || !isBuiltInGranularity(granularity)))
      report(
        `granularity must be a built-in granularity when time_dimension is set, not '${String(p.granularity)}'`,
      );
    if (timeDimension === null && granularity !== null) report('granularity needs a time_dimension');
    const partitionGranularity = str(p.partition_granularity);
    if (partitionGranularity !== null) {
      if (timeDimension === null) report('partition_granularity needs a time_dimension');
      else if (
        !isBuiltInGranularity(partitionGranularity) ||
        !servesGranularity(granularity ?? '', partitionGranularity)
      )
        report(`partition_granularity '${partitionGranularity}' must be ${granularity} or coarser`);
    }
    const rangeSql = (key: string): string | null => {
      const v = p[key];
      if (v === undefined) return null;
      const sql = isRecord(v) ? str(v.sql) : null;
      if (sql === null) report(`${key} must be {sql: ...}`);
      return sql;
    };
    const buildRangeStart = rangeSql('build_range_start');
    const buildRangeEnd = rangeSql('build_range_end');
    if ((buildRangeStart === null) !== (buildRangeEnd === null))
      report('build_range_start and build_range_end go together');
    if (partitionGranularity !== null && buildRangeStart === null)
      report('a partitioned rollup needs build_range_start and build_range_end');
    const refreshKey = refreshKeyOf(p, loc, report);
    if (p.measures === undefined && p.dimensions === undefined && p.time_dimension === undefined)
      report('has no members');
    if (ctx.reporter.errors.length > before) continue;
    out.set(
      name,
      Object.freeze({
        cube: ctx.cube,
        name,
        type: 'rollup',
        measures: Object.freeze(ms),
        dimensions: Object.freeze(ds),
        timeDimension,
        granularity: timeDimension === null ? null : granularity,
        partitionGranularity,
        refreshKey,
        buildRangeStart,
        buildRangeEnd,
        loc,
      }),
    );
  }
  return out;
}

/** `count`, `CUBE.count`, `orders.count` (YAML) or a JS reference's text: the member name. */
function memberName(value: unknown, cube: string, report: (m: string) => void): string | null {
  const text = str(value)
    ?.replace(/^\{|\}$/g, '')
    .trim();
  if (!text) {
    report(`member reference ${JSON.stringify(value)} is not a name`);
    return null;
  }
  const parts = text.split('.');
  if (parts.length === 1) return parts[0];
  if (parts.length === 2 && (parts[0] === 'CUBE' || parts[0] === cube)) return parts[1];
  report(`${text}: members of other cubes (rollups over joins) are not supported`);
  return null;
}

function refreshKeyOf(p: Raw, _loc: SourceLocation, report: (m: string) => void) {
  const rk = p.refresh_key;
  if (rk === undefined) return Object.freeze({ every: null, sql: null });
  if (!isRecord(rk)) {
    report('refresh_key must be {every} and/or {sql}');
    return Object.freeze({ every: null, sql: null });
  }
  const every = str(rk.every);
  if (every !== null && !/^\s*\d+\s*(second|minute|hour|day|week)s?\s*$/i.test(every))
    report(`refresh_key.every '${every}' is not 'N second|minute|hour|day|week'`);
  const sql = str(rk.sql);
  if (every === null && sql === null) report('refresh_key needs every or sql');
  return Object.freeze({ every, sql });
}

/** Bucket order of the built-in granularities; a week is not part of a month. */
const RANK: Record<string, number> = {
  second: 0,
  minute: 1,
  hour: 2,
  day: 3,
  week: 4,
  month: 5,
  quarter: 6,
  year: 7,
};

/**
 * Whether buckets of `rollup` sum up exactly into buckets of `query`: equal, or coarser and made
 * of whole rollup buckets (a day rollup serves weeks and months; a week rollup only weeks).
 */
export function servesGranularity(rollup: string, query: string): boolean {
  if (!(rollup in RANK) || !(query in RANK)) return false;
  if (rollup === query) return true;
  if (rollup === 'week' || query === 'week') return RANK[rollup] < RANK.week && query === 'week';
  return RANK[rollup] < RANK[query];
}
