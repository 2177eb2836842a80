import { isBuiltInGranularity, parseInterval } from './interval.ts';
import { isRecord, type Raw, str } from './raw.ts';
import type { ErrorReporter } from './reporter.ts';
import { locate } from './reporter.ts';
import { type NameIndex, parseTemplate } from './template.ts';
import type {
  Cube,
  Dimension,
  GrainRef,
  MeasureType,
  MultiStage,
  SourceLocation,
  TimeShift,
  View,
} from './types.ts';

/**
 * `multi_stage: true` measures (https://cube.dev/docs/product/data-modeling/concepts/multi-stage-calculations).
 * Supported: time_shift (prior/next by an interval, on a named or the query's time dimension),
 * group_by, reduce_by, add_group_by, rolling_window, `rank` with order_by, filters, and
 * references to other multi-stage measures. Anything else is a model error naming the member (issue 15: a construct
 * that is not supported never reaches the database).
 */
/** What members.ts passes in (its MemberContext; not imported, which would be a cycle). */
interface MemberContext {
  readonly cube: string;
  readonly index: NameIndex;
  readonly reporter: ErrorReporter;
  readonly loc: SourceLocation;
}

const STAGE_TYPES = new Set<MeasureType>([
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'count_distinct',
  'median',
  'number',
  'rank',
]);
const STAGE_KEYS = ['time_shift', 'group_by', 'reduce_by', 'add_group_by', 'order_by'] as const;

export function buildMultiStage(
  raw: Raw,
  type: MeasureType,
  member: string,
  ctx: MemberContext,
): MultiStage | null {
  const loc = locate(raw, ctx.loc, 'multi_stage');
  const report = (message: string, at: SourceLocation = loc) =>
    ctx.reporter.error(at, ctx.cube, member, message);
  if (raw.multi_stage !== true) {
    if (raw.multi_stage !== undefined && raw.multi_stage !== false)
      report('multi_stage must be true or false');
    for (const key of STAGE_KEYS) {
      if (raw[key] !== undefined) report(`${key} needs multi_stage: true`, locate(raw, ctx.loc, key));
    }
    if (type === 'rank') report('Measures of type rank need multi_stage: true', locate(raw, ctx.loc, 'type'));
    return null;
  }
  if (!STAGE_TYPES.has(type)) {
    report(
      `Multi-stage measures of type ${type} are not supported (supported: ${[...STAGE_TYPES].join(', ')})`,
    );
  }
  if (raw.rolling_window !== undefined)
    rollingChecks(raw, type, report, locate(raw, ctx.loc, 'rolling_window'));
  if (type !== 'rank' && raw.sql === undefined) report('A multi-stage measure needs sql');
  const grain = (key: 'group_by' | 'reduce_by' | 'add_group_by'): GrainRef[] | null => {
    const value = raw[key];
    if (value === undefined) return null;
    const at = locate(raw, ctx.loc, key);
    if (!Array.isArray(value)) {
      report(`${key} must be a list of dimensions`, at);
      return [];
    }
    const out: GrainRef[] = [];
    for (const item of value) {
      const ref = typeof item === 'string' ? grainRef(item, ctx) : null;
      if (ref) out.push(ref);
      else report(`${key}: '${String(item)}' is not a dimension of the model`, at);
    }
    return out;
  };
  const groupBy = grain('group_by');
  const reduceBy = grain('reduce_by') ?? [];
  const addGroupBy = grain('add_group_by') ?? [];
  if (groupBy && reduceBy.length > 0) report('Use either group_by or reduce_by, not both');
  if (type === 'number' && (groupBy || reduceBy.length > 0 || addGroupBy.length > 0)) {
    report('group_by, reduce_by and add_group_by on a multi-stage measure of type number are not supported');
  }
  if (type === 'rank' && (groupBy || addGroupBy.length > 0)) {
    report('group_by and add_group_by on a rank measure are not supported (use reduce_by)');
  }
  const orderBy = orderByOf(raw, type, member, ctx);
  return Object.freeze({
    timeShift: Object.freeze(timeShifts(raw, member, ctx)),
    groupBy: groupBy && Object.freeze(groupBy),
    reduceBy: Object.freeze(reduceBy),
    addGroupBy: Object.freeze(addGroupBy),
    orderBy: Object.freeze(orderBy),
  });
}

/**
 * rolling_window on a multi-stage measure (planner/multi-stage-rolling.ts): trailing, leading and
 * to_date windows over an aggregate of other measures, as Cube's sql-generation tests use them
 * ("rolling day ago", "rolling qtd proxy"). Not planned: a window on a row-by-row `number` or a
 * `rank`, and a window together with time_shift or a changed grain on the same measure (name
 * two measures instead, one referencing the other).
 */
const ROLLING_TYPES = new Set<MeasureType>(['sum', 'avg', 'min', 'max', 'count', 'count_distinct', 'median']);

function rollingChecks(
  raw: Raw,
  type: MeasureType,
  report: (m: string, at: SourceLocation) => void,
  at: SourceLocation,
) {
  if (!ROLLING_TYPES.has(type))
    report(`rolling_window on a multi-stage measure of type ${type} is not supported`, at);
  const others = (['time_shift', 'group_by', 'reduce_by', 'add_group_by'] as const).filter(
    (k) => raw[k] !== undefined,
  );
  if (others.length > 0)
    report(
      `rolling_window together with ${others.join(', ')} on one multi-stage measure is not supported`,
      at,
    );
}

/** `source`, `visitors.source`, `created_at.month`, `visitors.created_at.month`. */
function grainRef(text: string, ctx: MemberContext): GrainRef | null {
  const parts = text.trim().split('.');
  const [cube, rest] =
    ctx.index.cubes.has(parts[0]) && parts.length > 1 ? [parts[0], parts.slice(1)] : [ctx.cube, parts];
  if (rest.length < 1 || rest.length > 2) return null;
  if (!ctx.index.cubes.get(cube)?.has(rest[0])) return null;
  return Object.freeze({ cube, member: rest[0], granularity: rest[1] ?? null });
}

function timeShifts(raw: Raw, member: string, ctx: MemberContext): TimeShift[] {
  const value = raw.time_shift;
  if (value === undefined) return [];
  const at = locate(raw, ctx.loc, 'time_shift');
  const report = (message: string) => ctx.reporter.error(at, ctx.cube, member, `time_shift: ${message}`);
  if (!Array.isArray(value)) {
    report('must be a list');
    return [];
  }
  const out: TimeShift[] = [];
  for (const item of value) {
    if (!isRecord(item)) {
      report('entries must be objects with interval and type');
      continue;
    }
    if (item.name !== undefined) {
      report(`named calendar shifts ('${String(item.name)}') are not supported`);
      continue;
    }
    const interval = parseInterval(str(item.interval) ?? '');
    if (!interval) {
      report(`invalid interval '${String(item.interval)}'`);
      continue;
    }
    const type = item.type ?? 'prior';
    if (type !== 'prior' && type !== 'next') {
      report(`type must be prior or next, not '${String(type)}'`);
      continue;
    }
    const td = item.time_dimension;
    if (td !== undefined && typeof td !== 'string') {
      report('time_dimension must name a time dimension');
      continue;
    }
    const path = td === undefined ? null : td.includes('.') ? td.trim() : `${ctx.cube}.${td.trim()}`;
    out.push(Object.freeze({ timeDimension: path, interval, type }));
  }
  return out;
}

function orderByOf(raw: Raw, type: MeasureType, member: string, ctx: MemberContext) {
  const value = raw.order_by;
  const at = locate(raw, ctx.loc, 'order_by');
  const report = (message: string) => ctx.reporter.error(at, ctx.cube, member, message);
  if (value === undefined) {
    if (type === 'rank') report('A rank measure needs order_by');
    return [];
  }
  if (type !== 'rank') report('order_by is only supported on rank measures');
  if (!Array.isArray(value) || value.length === 0) {
    report('order_by must be a non-empty list of {sql, dir}');
    return [];
  }
  const out: { sql: ReturnType<typeof parseTemplate>; desc: boolean }[] = [];
  for (const item of value) {
    const sql = isRecord(item) ? str(item.sql) : null;
    const dir = isRecord(item) ? String(item.dir ?? 'asc').toLowerCase() : '';
    if (sql === null || (dir !== 'asc' && dir !== 'desc')) {
      report('order_by entries need sql and dir (asc or desc)');
      continue;
    }
    out.push({ sql: parseTemplate(sql, ctx.cube, ctx.index, report), desc: dir === 'desc' });
  }
  return out;
}

/**
 * After views are built: grain references name dimensions (with a granularity they have), and a
 * time_shift's time_dimension names a time dimension of a cube or a view.
 */
export function checkMultiStage(
  cubes: ReadonlyMap<string, Cube>,
  views: ReadonlyMap<string, View>,
  reporter: ErrorReporter,
): void {
  for (const cube of cubes.values()) {
    for (const m of cube.measures.values()) {
      const ms = m.multiStage;
      if (!ms) continue;
      const report = (message: string) => reporter.error(m.loc, cube.name, m.name, message);
      for (const ref of [...(ms.groupBy ?? []), ...ms.reduceBy, ...ms.addGroupBy]) {
        const dim = cubes.get(ref.cube)?.dimensions.get(ref.member);
        const name = `${ref.cube}.${ref.member}`;
        if (!dim) report(`${name} is not a dimension`);
        else if (ref.granularity !== null) {
          if (dim.type !== 'time') report(`${name} is not a time dimension: it has no granularity`);
          else if (!isBuiltInGranularity(ref.granularity) && !dim.granularities.has(ref.granularity))
            report(`${name} has no granularity ${ref.granularity}`);
        }
      }
      // the planner renders these over the inner stage's columns (planner/multi-stage.ts)
      for (const t of [m.sql ?? [], ...m.filters, ...ms.orderBy.map((o) => o.sql)]) {
        for (const p of t) {
          if (typeof p === 'string') continue;
          const target = p.ref === 'member' ? cubes.get(p.cube) : undefined;
          if (
            p.ref !== 'member' ||
            (target && !target.measures.has(p.member) && !target.dimensions.has(p.member))
          )
            report('The SQL of a multi-stage measure may reference only measures and dimensions');
        }
      }
      for (const shift of ms.timeShift) {
        if (shift.timeDimension === null) continue;
        const dim = shiftDimension(cubes, views, shift.timeDimension);
        if (dim?.type !== 'time') report(`time_shift: ${shift.timeDimension} is not a time dimension`);
      }
    }
  }
}

/** The cube dimension a time_shift names, directly or through a view member. */
export function shiftDimension(
  cubes: ReadonlyMap<string, Cube>,
  views: ReadonlyMap<string, View>,
  path: string,
): Dimension | null {
  const [owner, name] = path.split('.');
  const direct = cubes.get(owner)?.dimensions.get(name);
  if (direct) return direct;
  const target = views.get(owner)?.members.get(name)?.target;
  return target?.kind === 'dimension' ? target : null;
}
