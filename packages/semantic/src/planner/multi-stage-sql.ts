import type { Dimension } from '../model/types.ts';
import type { QueryMember } from '../query/types.ts';
import { and, type Expr, ident, type OrderItem, raw, type Select, select } from './nodes.ts';

/** `CAST(x AS <the dialect's text type>)` (TEXT is no Trino type). */
const castText = (e: Expr): Expr => ({ kind: 'func', name: 'castText', args: [e] });

/** One column of a stage's grain: a dimension, raw or at a granularity. */
export interface GrainCol {
  readonly id: string;
  readonly dim: Dimension;
  readonly granularity: string | null;
  /** How the query names it (a view member keeps its join path), or the cube member. */
  readonly member: QueryMember;
  readonly alias: string;
}

/** Grain columns as the SQL of a stage sees them: an alias per column. */
export interface GrainColumn {
  readonly alias: string;
}

/** Nulls sort as PostgreSQL sorts them (last ascending, first descending) on every engine. */
export function rank(partition: readonly Expr[], order: readonly OrderItem[]): Expr {
  const parts: (string | Expr)[] = ['rank() OVER ('];
  if (partition.length > 0) {
    parts.push('PARTITION BY ');
    for (const [i, p] of partition.entries()) parts.push(...(i > 0 ? [', ', p] : [p]));
    parts.push(' ');
  }
  parts.push('ORDER BY ');
  order.forEach((o, i) => {
    if (i > 0) parts.push(', ');
    parts.push({ kind: 'func', name: o.desc ? 'orderDesc' : 'orderAsc', args: [o.expr] });
  });
  parts.push(')');
  return raw(...parts);
}

/**
 * Stages at the same grain, side by side. FULL JOIN, because a shifted stage has rows where the
 * unshifted one has none; on the grain with NULL equal to NULL, written as plain equalities so
 * that PostgreSQL can hash them (it refuses a FULL JOIN on IS NOT DISTINCT FROM).
 */
export function combine(parts: readonly Select[], G: readonly GrainColumn[]): Select {
  let acc = parts[0];
  const keyAliases = new Set(G.map((c) => c.alias));
  for (const part of parts.slice(1)) {
    const L = 'ms_l';
    const R = 'ms_r';
    const measuresOf = (s: Select, from: string) =>
      s.items
        .filter((i) => !keyAliases.has(i.alias))
        .map((i) => ({ expr: ident(from, i.alias), alias: i.alias }));
    const on = and(
      G.flatMap((c): Expr[] => {
        const l = ident(L, c.alias);
        const r = ident(R, c.alias);
        return [
          { kind: 'binary', op: '=', left: raw('(', l, ' IS NULL)'), right: raw('(', r, ' IS NULL)') },
          {
            kind: 'binary',
            op: '=',
            left: raw('COALESCE(', castText(l), ", '')"),
            right: raw('COALESCE(', castText(r), ", '')"),
          },
        ];
      }),
    );
    acc = select({
      items: [
        ...G.map((c) => ({
          expr: { kind: 'func', name: 'coalesce', args: [ident(L, c.alias), ident(R, c.alias)] } as Expr,
          alias: c.alias,
        })),
        ...measuresOf(acc, L),
        ...measuresOf(part, R),
      ],
      from: { kind: 'subquery', select: acc, alias: L },
      joins: [
        {
          type: on ? 'full' : 'inner',
          source: { kind: 'subquery', select: part, alias: R },
          on: on ?? raw('1 = 1'),
        },
      ],
    });
  }
  return acc;
}
