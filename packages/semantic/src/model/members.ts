import { parseLocal } from '../query/time.ts';
import { intervalEpochSeconds, isBuiltInGranularity, parseInterval } from './interval.ts';
import { buildMultiStage } from './multi-stage.ts';
import { isRecord, memberList, type Raw, snakeCase, str } from './raw.ts';
import { type ErrorReporter, locate } from './reporter.ts';
import { type NameIndex, parseTemplate } from './template.ts';
import {
  type CaseLabel,
  type CustomGranularity,
  DIMENSION_TYPES,
  type Dimension,
  type DimensionType,
  type Interval,
  MEASURE_TYPES,
  type Measure,
  type MeasureType,
  type RollingWindow,
  type Segment,
  type SourceLocation,
  type SqlTemplate,
} from './types.ts';

/** Shared context while building the members of one cube. */
export interface MemberContext {
  readonly cube: string;
  readonly index: NameIndex;
  readonly reporter: ErrorReporter;
  readonly loc: SourceLocation;
}

function base(raw: Raw, ctx: MemberContext) {
  const name = String(raw.name);
  const isPublic = raw.public ?? raw.shown ?? true;
  return {
    cube: ctx.cube,
    name,
    path: `${ctx.cube}.${name}`,
    title: str(raw.title),
    description: str(raw.description),
    meta: isRecord(raw.meta) ? raw.meta : null,
    public: isPublic !== false,
    declaredPublic: raw.public === undefined && raw.shown === undefined ? null : isPublic !== false,
    loc: locate(raw, ctx.loc),
  };
}

/** A bare column name is prefixed with the cube, like Cube's BaseQuery.autoPrefixWithCubeName. */
const bareColumn = /^\s*[A-Za-z_]\w*\s*$/;

export function template(
  raw: Raw,
  key: string,
  ctx: MemberContext,
  member: string | null,
  autoPrefix = false,
): SqlTemplate | null {
  const value = raw[key];
  if (value === undefined || value === null) return null;
  let sql = str(value);
  if (sql !== null && autoPrefix && bareColumn.test(sql)) sql = `{CUBE}.${sql.trim()}`;
  const loc = locate(raw, ctx.loc, key);
  if (sql === null) {
    ctx.reporter.error(loc, ctx.cube, member, `'${key}' must be a string`);
    return null;
  }
  return parseTemplate(sql, ctx.cube, ctx.index, (m) => ctx.reporter.error(loc, ctx.cube, member, m));
}

export function buildMeasure(raw: Raw, ctx: MemberContext): Measure {
  const b = base(raw, ctx);
  const type = snakeCase(String(raw.type ?? '')) as MeasureType;
  if (!(MEASURE_TYPES as readonly string[]).includes(type)) {
    ctx.reporter.error(
      b.loc,
      ctx.cube,
      b.name,
      `Measure type '${String(raw.type)}' is not one of ${MEASURE_TYPES.join(', ')}`,
    );
  }
  const sql = template(raw, 'sql', ctx, b.name, true);
  if (sql === null && type !== 'count' && type !== 'rank')
    ctx.reporter.error(b.loc, ctx.cube, b.name, `Measure of type ${type} needs sql`);
  const filters: SqlTemplate[] = [];
  for (const f of Array.isArray(raw.filters) ? raw.filters : []) {
    const t = isRecord(f) ? template(f, 'sql', ctx, b.name) : null;
    if (t) filters.push(t);
    else ctx.reporter.error(b.loc, ctx.cube, b.name, 'Measure filters must be a list of {sql}');
  }
  const drill = raw.drill_members;
  return Object.freeze({
    ...b,
    kind: 'measure',
    type,
    sql,
    filters: Object.freeze(filters),
    rollingWindow: rollingWindow(raw, type, b.name, ctx),
    format: raw.format ?? null,
    drillMembers: Object.freeze(Array.isArray(drill) ? drill.map(String) : []),
    multiStage: buildMultiStage(raw, type, b.name, ctx),
  });
}

function rollingWindow(
  raw: Raw,
  type: MeasureType,
  member: string,
  ctx: MemberContext,
): RollingWindow | null {
  // running_total is Cube's deprecated spelling of an unbounded trailing window
  if (type === 'running_total') {
    return { type: 'fixed', trailing: 'unbounded', leading: null, offset: 'end', granularity: null };
  }
  const rw = raw.rolling_window;
  if (rw === undefined || rw === null) return null;
  const loc = locate(raw, ctx.loc, 'rolling_window');
  if (!isRecord(rw)) {
    ctx.reporter.error(loc, ctx.cube, member, 'rolling_window must be an object');
    return null;
  }
  const bound = (key: string): Interval | 'unbounded' | null => {
    const v = str(rw[key]);
    if (v === null) return null;
    if (v === 'unbounded') return v;
    const i = parseInterval(v);
    if (!i) ctx.reporter.error(loc, ctx.cube, member, `Invalid rolling_window.${key} interval '${v}'`);
    return i;
  };
  const windowType = rw.type === 'to_date' ? 'to_date' : 'fixed';
  const granularity = str(rw.granularity);
  if (windowType === 'to_date' && (granularity === null || !isBuiltInGranularity(granularity))) {
    ctx.reporter.error(loc, ctx.cube, member, 'rolling_window of type to_date needs a built-in granularity');
  }
  return Object.freeze({
    type: windowType,
    trailing: bound('trailing'),
    leading: bound('leading'),
    offset: rw.offset === 'start' ? 'start' : 'end',
    granularity,
  });
}

export function buildDimension(raw: Raw, ctx: MemberContext): Dimension {
  const b = base(raw, ctx);
  const type = String(raw.type ?? '') as DimensionType;
  if (!(DIMENSION_TYPES as readonly string[]).includes(type)) {
    ctx.reporter.error(
      b.loc,
      ctx.cube,
      b.name,
      `Dimension type '${String(raw.type)}' is not one of ${DIMENSION_TYPES.join(', ')}`,
    );
  }
  if (raw.multi_stage === true) {
    // Cube's multi-stage dimensions (bucketing by a measure) are not planned here
    ctx.reporter.error(
      locate(raw, ctx.loc, 'multi_stage'),
      ctx.cube,
      b.name,
      'Multi-stage dimensions are not supported',
    );
  }
  const caseLabel = buildCase(raw, ctx, b.name);
  const sql = type === 'geo' ? geoSql(raw, ctx, b.name) : template(raw, 'sql', ctx, b.name, true);
  if (sql === null && caseLabel === null && type !== 'geo') {
    ctx.reporter.error(b.loc, ctx.cube, b.name, 'Dimension needs sql');
  }
  return Object.freeze({
    ...b,
    kind: 'dimension',
    type,
    sql: sql ?? Object.freeze([{ ref: 'cube', cube: ctx.cube }, `.${b.name}`]),
    primaryKey: raw.primary_key === true,
    subQuery: raw.sub_query === true,
    propagateFiltersToSubQuery: raw.propagate_filters_to_sub_query === true,
    granularities: granularities(raw, type, b.name, ctx),
    case: caseLabel,
    format: raw.format ?? null,
  });
}

/**
 * A `geo` dimension (https://cube.dev/docs/product/data-modeling/reference/types-and-formats#geo)
 * is `latitude: {sql}` and `longitude: {sql}`; its value is `latitude,longitude` as text, as Cube
 * concatenates them.
 */
function geoSql(raw: Raw, ctx: MemberContext, member: string): SqlTemplate | null {
  const parts: SqlTemplate[] = [];
  for (const key of ['latitude', 'longitude'] as const) {
    const side = raw[key];
    const t = isRecord(side) ? template(side, 'sql', ctx, member, true) : null;
    if (t === null) {
      ctx.reporter.error(b0(raw, ctx, key), ctx.cube, member, `Geo dimension needs ${key}: {sql}`);
      return null;
    }
    parts.push(t);
  }
  // cast by each dialect (MySQL has no CAST AS VARCHAR, ClickHouse no VARCHAR of a number)
  return Object.freeze([
    { ref: 'castText', sql: Object.freeze(['(', ...parts[0]!, ')']) },
    " || ',' || ",
    { ref: 'castText', sql: Object.freeze(['(', ...parts[1]!, ')']) },
  ]);
}

function granularities(
  raw: Raw,
  type: string,
  member: string,
  ctx: MemberContext,
): Map<string, CustomGranularity> {
  const out = new Map<string, CustomGranularity>();
  if (raw.granularities === undefined) return out;
  if (type !== 'time')
    ctx.reporter.error(b0(raw, ctx), ctx.cube, member, 'Only time dimensions can have granularities');
  for (const g of memberList(raw.granularities)) {
    const loc = locate(g, ctx.loc);
    const name = String(g.name);
    const report = (m: string) => ctx.reporter.error(loc, ctx.cube, member, `Granularity ${name}: ${m}`);
    if (isBuiltInGranularity(name)) report('redefines a built-in granularity');
    if (out.has(name)) report('is defined twice');
    const interval = parseInterval(str(g.interval) ?? '');
    if (!interval) report(`invalid interval '${String(g.interval)}'`);
    else if (
      interval.months < 0 ||
      interval.days < 0 ||
      interval.seconds < 0 ||
      intervalEpochSeconds(interval) === 0
    ) {
      report(`interval '${String(g.interval)}' must be positive`);
    }
    const offset = g.offset === undefined ? null : parseInterval(str(g.offset) ?? '');
    if (g.offset !== undefined && !offset) report(`invalid offset '${String(g.offset)}'`);
    const origin = str(g.origin);
    if (origin !== null && parseLocal(origin, 'UTC') === null) report(`invalid origin '${origin}'`);
    if (origin !== null && offset) report('use either offset or origin, not both');
    if (interval) out.set(name, Object.freeze({ name, title: str(g.title), interval, offset, origin }));
  }
  return out;
}

function b0(raw: Raw, ctx: MemberContext, key = 'granularities'): SourceLocation {
  return locate(raw, ctx.loc, key);
}

function buildCase(raw: Raw, ctx: MemberContext, member: string): CaseLabel | null {
  const c = raw.case;
  if (!isRecord(c)) return null;
  const when: { sql: SqlTemplate; label: string }[] = [];
  for (const w of Array.isArray(c.when) ? c.when : []) {
    const sql = isRecord(w) ? template(w, 'sql', ctx, member) : null;
    const label = isRecord(w) ? labelOf(w.label) : null;
    if (sql && label !== null) when.push({ sql, label });
    else
      ctx.reporter.error(
        locate(raw, ctx.loc, 'case'),
        ctx.cube,
        member,
        'case.when entries need sql and label',
      );
  }
  const elseLabel = isRecord(c.else) ? labelOf(c.else.label) : null;
  return Object.freeze({ when: Object.freeze(when), else: elseLabel });
}

// Cube accepts `label: text` or `label: {sql: ...}`; only literal labels are supported here.
function labelOf(label: unknown): string | null {
  return str(label);
}

export function buildSegment(raw: Raw, ctx: MemberContext): Segment {
  const b = base(raw, ctx);
  const sql = template(raw, 'sql', ctx, b.name);
  if (sql === null) ctx.reporter.error(b.loc, ctx.cube, b.name, 'Segment needs sql');
  return Object.freeze({ ...b, kind: 'segment', sql: sql ?? Object.freeze(['1 = 1']) });
}
