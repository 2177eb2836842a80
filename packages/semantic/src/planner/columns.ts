import type { Model } from '../model/types.ts';
import { timeDimensionKey } from '../query/order.ts';
import type { QueryMember, ResolvedQuery, TimeDimensionSpec } from '../query/types.ts';
import { dimensionExpr, timeExpr } from './member-sql.ts';
import type { Expr } from './nodes.ts';

/** One output column: its SQL alias, the response key, and what it is. */
export interface PlannedColumn {
  readonly alias: string;
  readonly key: string;
  readonly kind: 'dimension' | 'timeDimension' | 'measure';
  readonly member: QueryMember;
  readonly granularity: string | null;
}

/**
 * Output columns in Cube's order (dimensions, time dimensions, measures) with stable aliases:
 * `orders__status`, `orders__created_at_month`, `orders__count`.
 */
export function planColumns(q: ResolvedQuery): PlannedColumn[] {
  const used = new Set<string>();
  const alias = (base: string) => {
    let a = base.replace(/\./g, '__').toLowerCase();
    for (let i = 2; used.has(a); i++) a = `${base.replace(/\./g, '__').toLowerCase()}_${i}`;
    used.add(a);
    return a;
  };
  const out: PlannedColumn[] = [];
  for (const d of q.dimensions)
    out.push({ alias: alias(d.path), key: d.path, kind: 'dimension', member: d, granularity: null });
  for (const td of q.timeDimensions) {
    if (!td.granularity) continue;
    const key = timeDimensionKey(td);
    if (out.some((c) => c.key === key)) continue;
    out.push({
      alias: alias(`${td.member.path}_${td.granularity}`),
      key,
      kind: 'timeDimension',
      member: td.member,
      granularity: td.granularity,
    });
  }
  for (const m of q.measures) {
    if (out.some((c) => c.key === m.path)) continue;
    out.push({ alias: alias(m.path), key: m.path, kind: 'measure', member: m, granularity: null });
  }
  return out;
}

/** Row-level expression of a dimension column (time dimensions converted to the query zone). */
export function dimensionColumnExpr(model: Model, c: PlannedColumn, timezone: string, now: number): Expr {
  const dim = c.member.member;
  if (dim.kind !== 'dimension') throw new Error(`not a dimension: ${c.key}`);
  if (c.kind === 'timeDimension' || dim.type === 'time')
    return timeExpr(model, dim, c.granularity, timezone, now);
  return dimensionExpr(model, dim);
}

export function rollingTimeDimension(q: ResolvedQuery): TimeDimensionSpec | null {
  return q.timeDimensions.find((t) => t.granularity !== null && t.dateRange !== null) ?? null;
}
