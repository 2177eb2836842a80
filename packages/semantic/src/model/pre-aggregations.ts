import { isBuiltInGranularity } from './interval.ts';
import type { MemberContext } from './members.ts';
import { isRecord, memberList, type Raw, snakeCase, str } from './raw.ts';
import type { ErrorReporter } from './reporter.ts';
import { locate } from './reporter.ts';
import type { Cube, Dimension, Measure, PreAggregation, SourceLocation } from './types.ts';

/**
 * `pre_aggregations` of one cube (https://cube.dev/docs/product/data-modeling/reference/pre-aggregations).
 * Tessera builds `rollup` only: `original_sql`, `rollup_join` and `rollup_lambda` are refused with
 * a model error naming the pre-aggregation, as is a partitioned rollup without
 * `build_range_start`/`build_range_end` (its partitions are the periods of that range). Members
 * are kept as `cube.member` paths; a rollup may name members of other cubes (Cube's rollup over a
 * join: the build query joins them as any query would), checked once every cube is built
 * (checkRollupJoins). Every problem is reported; a bad pre-aggregation is left out.
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
        const path = memberPath(v, ctx.cube, report);
        if (path === null) return [];
        const [cube, member] = path.split('.');
        // members of other cubes are checked once every cube is built (checkRollupJoins)
        if (cube !== ctx.cube) return [path];
        const found = kind === 'measure' ? measures.get(member) : dimensions.get(member);
        if (!found) report(`${key}: ${ctx.cube} has no ${kind} ${member}`);
        return found ? [path] : [];
      });
    };
    const ms = refs('measures', 'measure');
    const ds = refs('dimensions', 'dimension');
    let timeDimension: string | null = null;
    if (p.time_dimension !== undefined) {
      timeDimension = memberPath(p.time_dimension, ctx.cube, report);
      const [cube, member] = timeDimension?.split('.') ?? [];
      if (cube === ctx.cube && dimensions.get(member)?.type !== 'time')
        report(`time_dimension ${member} is not a time dimension of ${ctx.cube}`);
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

/** `count`, `CUBE.count`, `orders.count` (YAML) or a JS reference's text: the `cube.member` path. */
function memberPath(value: unknown, cube: string, report: (m: string) => void): string | null {
  const text = str(value)
    ?.replace(/^\{|\}$/g, '')
    .trim();
  const parts = text?.split('.') ?? [];
  if (!text || parts.length > 2 || parts.some((x) => !/^[A-Za-z_]\w*$/.test(x))) {
    report(`member reference ${JSON.stringify(value)} is not a name`);
    return null;
  }
  if (parts.length === 1) return `${cube}.${parts[0]}`;
  return `${parts[0] === 'CUBE' ? cube : parts[0]}.${parts[1]}`;
}

/**
 * Second pass over every cube's rollups: members of other cubes must exist with the right kind,
 * and the cubes of all members must be joinable from one of them by declared joins (the build
 * query is planned like any query: https://cube.dev/docs/product/caching/getting-started-pre-aggregations#pre-aggregations-and-joins).
 * A rollup failing this is reported and left out.
 */
export function checkRollupJoins(cubes: ReadonlyMap<string, Cube>, reporter: ErrorReporter): void {
  for (const cube of cubes.values()) {
    for (const p of cube.preAggregations.values()) {
      const report = (m: string) =>
        reporter.error(p.loc, cube.name, p.name, `Pre-aggregation ${cube.name}.${p.name}: ${m}`);
      const before = reporter.errors.length;
      const find = (path: string, kind: 'measure' | 'dimension') => {
        const [c, name] = path.split('.');
        const target = cubes.get(c);
        const found = kind === 'measure' ? target?.measures.get(name) : target?.dimensions.get(name);
        if (!found) report(`${path} is not a ${kind} of the model`);
        return found;
      };
      for (const m of p.measures) find(m, 'measure');
      for (const d of p.dimensions) find(d, 'dimension');
      if (p.timeDimension !== null) {
        const d = find(p.timeDimension, 'dimension') as Dimension | undefined;
        if (d && d.type !== 'time') report(`time_dimension ${p.timeDimension} is not a time dimension`);
      }
      const owners = [
        ...new Set([...p.measures, ...p.dimensions, p.timeDimension ?? ''].filter(Boolean).map(cubeOf)),
      ];
      if (reporter.errors.length === before && !joinable(cubes, owners))
        report(`no cube among ${owners.join(', ')} reaches the others by its joins`);
      // a bad rollup is left out, as in the first pass (the map is this compile's own)
      if (reporter.errors.length > before)
        (cube.preAggregations as Map<string, PreAggregation>).delete(p.name);
    }
  }
}

function cubeOf(path: string): string {
  return path.slice(0, path.indexOf('.'));
}

/** Whether one of `owners` reaches all the others following joins in their declared direction. */
function joinable(cubes: ReadonlyMap<string, Cube>, owners: readonly string[]): boolean {
  return owners.some((root) => {
    const seen = new Set([root]);
    const queue = [root];
    while (queue.length > 0) {
      for (const next of cubes.get(queue.shift()!)?.joins.keys() ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
    return owners.every((o) => seen.has(o));
  });
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
