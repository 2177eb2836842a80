import { UserError } from '../errors.ts';
import { shiftDimension } from '../model/multi-stage.ts';
import type { Dimension, GrainRef, Interval, Measure, Model, SqlTemplate } from '../model/types.ts';
import type { LocalRange } from '../query/date-range.ts';
import { isMeasureFilter } from '../query/filters.ts';
import type { FilterNode, QueryMember, ResolvedQuery, TimeDimensionSpec } from '../query/types.ts';
import { type PlannedColumn, planColumns } from './columns.ts';
import { filterExpr } from './filters.ts';
import { aggregateOfType, leavesOf, measureValue } from './member-sql.ts';
import { periodColumns, type RollingStage, rollingSelect, rollingStage } from './multi-stage-rolling.ts';
import { combine, type GrainCol, rank } from './multi-stage-sql.ts';
import {
  and,
  type Expr,
  freeze,
  ident,
  integer,
  type OrderItem,
  raw,
  type Select,
  type SelectItem,
  type Source,
  select,
} from './nodes.ts';
import type { CubeSecurity } from './query-tree.ts';
import { filterMembers } from './required.ts';

/**
 * Multi-stage measures (https://cube.dev/docs/product/data-modeling/concepts/multi-stage-calculations),
 * planned in stages over subqueries, as Cube's Tesseract planner does:
 * - the innermost stage is an ordinary plan (plan.ts) of the plain measures at the stage's grain:
 *   the query's dimensions plus any `add_group_by`, with the query's filters;
 * - a `time_shift` stage plans its inner stage with the time dimension moved by the interval, so
 *   that the row of day X holds the value of day X - 1 (`prior`), date range included;
 * - an aggregate stage (`sum`, `avg`, ...) aggregates the inner rows by the grain it keeps
 *   (`group_by`, or all but `reduce_by`), joined back onto the query's rows when that is coarser;
 * - a `rank` stage is `rank() OVER (PARTITION BY the grain without reduce_by ORDER BY ...)`;
 * - a `number` stage computes its SQL row by row from the inner values;
 * - a `rolling_window` stage aggregates, per period of the date range, the inner rows its window
 *   holds (multi-stage-rolling.ts).
 * Stages at the query's grain are combined with FULL JOINs on the grain (a shifted stage may have
 * rows the unshifted one lacks: Cube keeps both), and measure filters apply last.
 */

/** What plan.ts returns; passed in to keep the two files free of an import cycle. */
export interface StagePlan {
  readonly select: Select;
  readonly total: Select | null;
  readonly columns: readonly PlannedColumn[];
}

export type { GrainCol } from './multi-stage-sql.ts';

export type Planner<O> = (
  model: Model,
  q: ResolvedQuery,
  cubeSecurity: CubeSecurity,
  options: O,
) => StagePlan;

/**
 * Time dimension path -> the shifts applied to it, in order: each moves the SQL by an interval
 * (`forward`: later), printed by the dialect (Dialect.timeShift, else `(sql) + <interval>`).
 */
interface ShiftMove {
  readonly interval: Interval;
  readonly forward: boolean;
}
type Shift = ReadonlyMap<string, readonly ShiftMove[]>;

/**
 * What a stage's inner plans see: time dimensions moved by time_shift, and the query's date
 * ranges widened to what a rolling window reaches (null: no range at all).
 */
interface Frame {
  readonly shift: Shift;
  readonly ranges: ReadonlyMap<TimeDimensionSpec, LocalRange | null>;
}

export function usesMultiStage(model: Model, q: ResolvedQuery): boolean {
  const members = [...q.measures, ...filterMembers(q.filters)];
  return members.some(
    (m) => m.member.kind === 'measure' && leavesOf(model, m.member).some((l) => l.multiStage),
  );
}

export function planMultiStage<O extends object>(
  model: Model,
  q: ResolvedQuery,
  cubeSecurity: CubeSecurity,
  options: O,
  planner: Planner<O>,
): StagePlan {
  if (q.ungrouped) throw new UserError('Multi-stage measures cannot be used in an ungrouped query');
  const stages = new Stages(model, q, (m, rq) =>
    planner(m, rq, cubeSecurity, { ...options, applyEveryPolicy: true }),
  );
  const columns = planColumns(q);
  const grain = new Map<PlannedColumn, GrainCol>();
  for (const c of columns) {
    if (c.kind !== 'measure') grain.set(c, stages.grainOf(c.member, c.granularity));
  }
  const having = q.filters.filter(isMeasureFilter);
  const leaves: Measure[] = [];
  for (const m of [
    ...columns.filter((c) => c.kind === 'measure').map((c) => c.member),
    ...filterMembers(having),
  ])
    if (m.member.kind === 'measure') leavesOf(model, m.member, leaves);
  const G = [...new Set(grain.values())];
  const top = stages.compute(leaves, G, { shift: new Map(), ranges: new Map() });
  const T = 'ms_q';
  const value = (m: QueryMember): Expr => {
    if (m.member.kind !== 'measure') throw new UserError(`${m.path} cannot be used after aggregation`);
    return measureValue(model, m.member, (l) => ident(T, stages.measureAlias(l)));
  };
  const body = select({
    items: columns.map((c) => ({
      expr: c.kind === 'measure' ? value(c.member) : ident(T, grain.get(c)!.alias),
      alias: c.alias,
    })),
    from: { kind: 'subquery', select: top, alias: T },
    where: and(having.map((f) => filterExpr(model, f, value))),
  });
  const orderBy = q.order.map((o) => ({
    expr: integer(columns.findIndex((c) => c.key === o.id) + 1),
    desc: o.desc,
  }));
  const total = q.total
    ? select({
        items: [{ expr: { kind: 'agg', fn: 'count', distinct: false, arg: null }, alias: 'total_count' }],
        from: { kind: 'subquery', select: body, alias: 'original_query' },
      })
    : null;
  return freeze({
    select: select({ ...body, orderBy, limit: q.limit, offset: q.offset || null }),
    total,
    columns,
  });
}

class Stages {
  private readonly grains = new Map<string, GrainCol>();
  private readonly measures = new Map<Measure, string>();
  private readonly models = new Map<string, Model>();
  private readonly baseFilters: readonly FilterNode[];

  constructor(
    private readonly model: Model,
    private readonly q: ResolvedQuery,
    private readonly plan: (model: Model, q: ResolvedQuery) => StagePlan,
  ) {
    this.baseFilters = q.filters.filter((f) => !isMeasureFilter(f));
  }

  grainOf(member: QueryMember, granularity: string | null): GrainCol {
    const dim = member.member as Dimension;
    const id = `${dim.path}|${granularity ?? ''}`;
    let col = this.grains.get(id);
    if (!col) {
      col = { id, dim, granularity, member, alias: `g_${this.grains.size}` };
      this.grains.set(id, col);
    }
    return col;
  }

  measureAlias(m: Measure): string {
    let alias = this.measures.get(m);
    if (alias === undefined) {
      alias = `m_${this.measures.size}`;
      this.measures.set(m, alias);
    }
    return alias;
  }

  /** A select with one column per grain column, then one per measure. */
  compute(measures: readonly Measure[], G: readonly GrainCol[], frame: Frame): Select {
    const plain = measures.filter((m) => !m.multiStage);
    const staged = measures.filter((m) => m.multiStage);
    const parts: Select[] = [];
    if (plain.length > 0 || staged.length === 0) parts.push(this.base(plain, G, frame));
    for (const m of staged) parts.push(this.stage(m, G, frame));
    return combine(parts, G);
  }

  /** The plain measures at grain G: an ordinary plan, over the shifted model when shifted. */
  private base(plain: readonly Measure[], G: readonly GrainCol[], { shift, ranges }: Frame): Select {
    const model = this.shifted(shift);
    const moved = (m: QueryMember): QueryMember => {
      if (m.member.kind !== 'dimension' || !shift.has(m.member.path)) return m;
      return { ...m, member: model.cubes.get(m.member.cube)!.dimensions.get(m.member.name)! };
    };
    const movedFilter = (f: FilterNode): FilterNode =>
      f.kind === 'member'
        ? { ...f, member: moved(f.member) }
        : f.kind === 'deny'
          ? f
          : { ...f, items: f.items.map(movedFilter) };
    const rawCols = G.filter((c) => c.granularity === null);
    const timeCols = G.filter((c) => c.granularity !== null);
    const timeDimensions: TimeDimensionSpec[] = [];
    const used = new Set<GrainCol>();
    // the query's time dimensions keep their date ranges, and their granularity where in the grain
    for (const td of this.q.timeDimensions) {
      const col = timeCols.find(
        (c) => !used.has(c) && c.dim === td.member.member && c.granularity === td.granularity,
      );
      const dateRange = ranges.has(td) ? ranges.get(td)! : td.dateRange;
      if (col) used.add(col);
      else if (!dateRange) continue;
      timeDimensions.push({ member: moved(td.member), granularity: col ? td.granularity : null, dateRange });
    }
    for (const c of timeCols) {
      if (!used.has(c))
        timeDimensions.push({ member: moved(c.member), granularity: c.granularity, dateRange: null });
    }
    const rq: ResolvedQuery = {
      ...this.q,
      measures: plain.map(cubeMember),
      dimensions: rawCols.map((c) => moved(c.member)),
      timeDimensions,
      filters: this.baseFilters.map(movedFilter),
      order: [],
      offset: 0,
      total: false,
      ungrouped: false,
    };
    const plan = this.plan(model, rq);
    const names = new Map<string, string>();
    for (const c of plan.columns) {
      if (c.kind === 'measure') {
        names.set(c.alias, this.measureAlias(c.member.member as Measure));
        continue;
      }
      const col = G.find((g) => g.dim.path === c.member.member.path && g.granularity === c.granularity);
      if (col) names.set(c.alias, col.alias);
    }
    return select({
      ...plan.select,
      items: plan.select.items.map((it) => ({ ...it, alias: names.get(it.alias) ?? it.alias })),
      orderBy: [],
      limit: null,
      offset: null,
    });
  }

  /** One multi-stage measure at grain G. */
  private stage(m: Measure, G: readonly GrainCol[], frame: Frame): Select {
    const ms = m.multiStage!;
    const inner = this.withRefs([...G], ms.addGroupBy);
    const deps: Measure[] = [];
    for (const t of [m.sql ?? [], ...m.filters, ...ms.orderBy.map((o) => o.sql)]) {
      for (const p of t) {
        if (typeof p === 'string' || p.ref !== 'member') continue;
        const measure = this.model.cubes.get(p.cube)!.measures.get(p.member);
        if (measure) leavesOf(this.model, measure, deps);
      }
    }
    const I = 'ms_in';
    const shifted: Frame = { ...frame, shift: this.withShifts(m, frame.shift) };
    const over = (cols: readonly GrainCol[], f: Frame = shifted): Source => {
      this.checkDimensions(m, cols);
      return { kind: 'subquery', select: this.compute(deps, cols, f), alias: I };
    };
    const keys = (cols: readonly GrainCol[]): SelectItem[] =>
      cols.map((c) => ({ expr: ident(I, c.alias), alias: c.alias }));
    const alias = this.measureAlias(m);
    // the measure's value over the inner rows at `cols`, NULL where its filters fail
    const guarded = (cols: readonly GrainCol[], e: Expr): Expr => {
      const filters = m.filters.map((t) => this.render(m, t, I, cols));
      return filters.length === 0
        ? e
        : { kind: 'case', whens: [{ when: and(filters)!, result: e }], else: null };
    };
    const valueOver = (cols: readonly GrainCol[]) => guarded(cols, this.render(m, m.sql!, I, cols));

    if (m.type === 'rank') {
      const partition = inner.filter((c) => !matches(ms.reduceBy, c)).map((c) => ident(I, c.alias));
      const order: OrderItem[] = ms.orderBy.map((o) => ({
        expr: this.render(m, o.sql, I, inner),
        desc: o.desc,
      }));
      const value = guarded(inner, rank(partition, order));
      return select({ items: [...keys(inner), { expr: value, alias }], from: over(inner) });
    }
    if (m.type === 'number')
      return select({ items: [...keys(inner), { expr: valueOver(inner), alias }], from: over(inner) });
    const rolling = m.rollingWindow ? rollingStage(m, this.q) : null;
    if (rolling) return this.rolling(m, rolling, G, shifted, over, valueOver);

    // add_group_by refines the inner stage; so do group_by dimensions the query lacks (Cube's
    // median of per-client counts); the result keeps (part of) the consumer's grain. The inner
    // stage keeps the query's grain too: Cube sums a total over the rows a join fans out
    const kept = ms.groupBy
      ? G.filter((c) => matches(ms.groupBy!, c))
      : G.filter((c) => !matches(ms.reduceBy, c));
    const grain = ms.groupBy
      ? this.withRefs(
          [...inner],
          ms.groupBy.filter((r) => !G.some((c) => matches([r], c))),
        )
      : inner;
    const grouped = select({
      items: [...keys(kept), { expr: aggregateOfType(m.type, valueOver(grain))!, alias }],
      from: over(grain),
      groupBy: kept.map((_, i) => integer(i + 1)),
    });
    if (kept.length === G.length) return grouped;
    // the query's rows, each with the value of the coarser group it belongs to
    const D = 'ms_rows';
    const A = 'ms_group';
    const rows = select({ distinct: true, items: keys(G), from: over(inner) });
    return select({
      items: [
        ...G.map((c) => ({ expr: ident(D, c.alias), alias: c.alias })),
        { expr: ident(A, alias), alias },
      ],
      from: { kind: 'subquery', select: rows, alias: D },
      joins: [
        {
          type: 'left',
          source: { kind: 'subquery', select: grouped, alias: A },
          on:
            and(
              kept.map((c) => ({
                kind: 'binary',
                op: 'IS NOT DISTINCT FROM',
                left: ident(D, c.alias),
                right: ident(A, c.alias),
              })),
            ) ?? raw('1 = 1'),
        },
      ],
    });
  }

  /**
   * A rolling_window stage (multi-stage-rolling.ts): the inner stage with the anchor's time at a
   * grain every window bound falls on, over the range the windows reach; one row per period.
   */
  private rolling(
    m: Measure,
    r: RollingStage,
    G: readonly GrainCol[],
    frame: Frame,
    over: (cols: readonly GrainCol[], f: Frame) => Source,
    valueOver: (cols: readonly GrainCol[]) => Expr,
  ): Select {
    const dim = r.td.member.member as Dimension;
    const time = this.grainOf(r.td.member, r.innerGranularity);
    const inner = [...G.filter((c) => c.dim !== dim), time];
    const columns = periodColumns(m, r, G);
    const ranges = new Map(frame.ranges).set(r.td, r.innerRange);
    const value = { expr: aggregateOfType(m.type, valueOver(inner))!, alias: this.measureAlias(m) };
    return rollingSelect(r, over(inner, { ...frame, ranges }), ident('ms_in', time.alias), columns, value);
  }

  /** `cols` with a column for each dimension `refs` names that it lacks. */
  private withRefs(cols: GrainCol[], refs: readonly GrainRef[]): GrainCol[] {
    for (const ref of refs) {
      const dim = this.model.cubes.get(ref.cube)!.dimensions.get(ref.member)!;
      const col = this.grainOf(cubeMember(dim), ref.granularity);
      if (!cols.includes(col)) cols.push(col);
    }
    return cols;
  }

  /** The shift in force plus this measure's time_shift (once per time dimension). */
  private withShifts(m: Measure, shift: Shift): Shift {
    const ms = m.multiStage!;
    if (ms.timeShift.length === 0) return shift;
    const out = new Map(shift);
    const done = new Set<string>();
    for (const ts of ms.timeShift) {
      const dims =
        ts.timeDimension === null
          ? this.q.timeDimensions.map((t) => t.member.member as Dimension)
          : [shiftDimension(this.model.cubes, this.model.views, ts.timeDimension)!];
      for (const dim of dims) {
        if (done.has(dim.path)) continue;
        done.add(dim.path);
        // `prior`: the row of X shows the value of X - interval, so the time moves forward
        const move = { interval: ts.interval, forward: ts.type === 'prior' };
        out.set(dim.path, [...(out.get(dim.path) ?? []), move]);
      }
    }
    return out;
  }

  /** The model with each shifted time dimension's SQL moved by its intervals. */
  private shifted(shift: Shift): Model {
    if (shift.size === 0) return this.model;
    const key = JSON.stringify([...shift]);
    let model = this.models.get(key);
    if (!model) {
      const cubes = new Map(this.model.cubes);
      for (const [path, moves] of shift) {
        const [cubeName, name] = path.split('.');
        const cube = cubes.get(cubeName)!;
        const dim = cube.dimensions.get(name)!;
        const dimensions = new Map(cube.dimensions);
        // each move around the one before: `((sql) + <interval a>) + <interval b>`
        const sql = moves.reduce<SqlTemplate>(
          (inner, m) => [{ ref: 'timeShift', sql: inner, ...m }],
          dim.sql,
        );
        dimensions.set(name, freeze({ ...dim, sql }));
        cubes.set(cubeName, freeze({ ...cube, dimensions }));
      }
      model = freeze({ cubes, views: this.model.views });
      this.models.set(key, model);
    }
    return model;
  }

  /** Dimensions a multi-stage measure's SQL names must be columns of its inner stage. */
  private checkDimensions(m: Measure, grain: readonly GrainCol[]): void {
    for (const t of [m.sql ?? [], ...m.filters, ...m.multiStage!.orderBy.map((o) => o.sql)]) {
      for (const p of t) {
        if (typeof p === 'string' || p.ref !== 'member') continue;
        const dim = this.model.cubes.get(p.cube)!.dimensions.get(p.member);
        if (dim && !grain.some((c) => c.dim === dim))
          throw new UserError(`${m.path} needs ${dim.path} in the query (or in add_group_by)`);
      }
    }
  }

  /** A multi-stage measure's SQL over its inner stage: measures and grain dimensions as columns. */
  private render(m: Measure, t: SqlTemplate, from: string, grain: readonly GrainCol[]): Expr {
    const leaf = (l: Measure) => ident(from, this.measureAlias(l));
    const parts: (string | Expr)[] = [];
    for (const p of t) {
      if (typeof p === 'string') {
        parts.push(p);
        continue;
      }
      if (p.ref !== 'member') {
        throw new UserError(
          `${m.path}: only measures and dimensions can be referenced in a multi-stage measure`,
        );
      }
      const cube = this.model.cubes.get(p.cube)!;
      const measure = cube.measures.get(p.member);
      const dim = cube.dimensions.get(p.member);
      if (measure) parts.push(measureValue(this.model, measure, leaf));
      else if (dim) {
        const col =
          grain.find((c) => c.dim === dim && c.granularity === null) ?? grain.find((c) => c.dim === dim);
        if (!col) throw new UserError(`${m.path} needs ${dim.path} in the query (or in add_group_by)`);
        parts.push(ident(from, col.alias));
      } else throw new UserError(`${m.path}: segments cannot be referenced in a multi-stage measure`);
    }
    return raw('(', ...parts, ')');
  }
}

function cubeMember(member: Measure | Dimension): QueryMember {
  return { path: member.path, owner: member.cube, member, view: null, viewMember: null };
}

function matches(refs: readonly GrainRef[], c: GrainCol): boolean {
  return refs.some(
    (r) =>
      r.cube === c.dim.cube &&
      r.member === c.dim.name &&
      (r.granularity === null || r.granularity === c.granularity),
  );
}
