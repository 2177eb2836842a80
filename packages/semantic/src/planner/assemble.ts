import { UserError } from '../errors.ts';
import type { Measure, Model } from '../model/types.ts';
import type { FilterNode, QueryMember } from '../query/types.ts';
import type { PlannedColumn } from './columns.ts';
import { leafAlias } from './fanout.ts';
import { filterExpr } from './filters.ts';
import { measureValue } from './member-sql.ts';
import {
  and,
  type Expr,
  ident,
  integer,
  type JoinNode,
  raw,
  type Select,
  type SelectItem,
  type Source,
} from './nodes.ts';

/** One aggregate subquery of a plan: dimension columns, then one column per leaf measure. */
export interface Subquery {
  readonly select: Select;
  readonly leaves: readonly Measure[];
  /** May lack some dimension groups (its rows come through INNER JOINs): LEFT JOIN it, counts 0. */
  readonly partial: boolean;
}

export interface OuterQuery {
  readonly items: SelectItem[];
  readonly from: Source;
  readonly joins: JoinNode[];
  readonly where: Expr | null;
}

const COUNTS = new Set<Measure['type']>(['count', 'count_distinct', 'count_distinct_approx']);

/**
 * Joins the aggregate subqueries on the dimension columns, as Cube's joinFullKeyQueryAggregate
 * does: INNER JOINs, NULL-safe, the dimension values taken from the first. Measures computed from
 * several leaves and measure filters (HAVING) are evaluated here, on the leaves' columns.
 */
export function joinSubqueries(
  model: Model,
  subqueries: readonly Subquery[],
  columns: readonly PlannedColumn[],
  having: readonly FilterNode[],
): OuterQuery {
  const named = subqueries.map((s, i) => ({ ...s, alias: `q_${i}` }));
  const first = named[0];
  const dimAliases = columns.filter((c) => c.kind !== 'measure').map((c) => c.alias);
  const leafRef = (leaf: Measure): Expr => {
    const s = named.find((n) => n.leaves.includes(leaf))!;
    const ref = ident(s.alias, leafAlias(leaf));
    // a group missing from a partial subquery had no rows there: a count over no rows is 0
    return s.partial && COUNTS.has(leaf.type)
      ? { kind: 'func', name: 'coalesce', args: [ref, integer(0)] }
      : ref;
  };
  const outerValue = (m: QueryMember): Expr => {
    if (m.member.kind !== 'measure') throw new UserError(`${m.path} cannot be used after aggregation`);
    return measureValue(model, m.member, leafRef);
  };
  const joins: JoinNode[] = named.slice(1).map((s) => ({
    type: s.partial ? 'left' : 'inner',
    source: { kind: 'subquery', select: s.select, alias: s.alias },
    on:
      and(
        dimAliases.map((a) => ({
          kind: 'binary',
          op: 'IS NOT DISTINCT FROM',
          left: ident(first.alias, a),
          right: ident(s.alias, a),
        })),
      ) ?? raw('1 = 1'),
  }));
  return {
    items: columns.map((c) => ({
      expr: c.kind === 'measure' ? outerValue(c.member) : ident(first.alias, c.alias),
      alias: c.alias,
    })),
    from: { kind: 'subquery', select: first.select, alias: first.alias },
    joins,
    where: and(having.map((f) => filterExpr(model, f, outerValue))),
  };
}
