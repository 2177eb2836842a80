import type { Cube, Measure, Model } from '../model/types.ts';
import { aggregate, dimensionExpr } from './member-sql.ts';
import {
  and,
  type Expr,
  ident,
  integer,
  type JoinNode,
  type Select,
  type SelectItem,
  type Source,
  select,
} from './nodes.ts';
import { cubeSource } from './sources.ts';

export function leafAlias(m: Measure): string {
  return `${m.cube}__${m.name}`.toLowerCase();
}

/**
 * Measures of a cube whose rows the joins multiply (Cube's "multiplied measures",
 * BaseQuery.aggregateSubQuery): first select the DISTINCT (dimensions, primary key) pairs over
 * the full join and filters, then join the cube back on its primary key and aggregate. Each
 * cube row then counts once per dimension group, however many rows the joins produced.
 */
export function fanoutSubquery(
  model: Model,
  cube: Cube,
  leaves: readonly Measure[],
  dimItems: readonly SelectItem[],
  from: Source,
  joins: readonly JoinNode[],
  where: Expr | null,
): Select {
  const keysAlias = `${cube.name}__keys`;
  const keyItems = cube.primaryKeys.map((pk, i) => ({
    expr: dimensionExpr(model, pk),
    alias: `${cube.name}__pk_${i}`,
  }));
  const keys = select({ distinct: true, items: [...dimItems, ...keyItems], from, joins, where });
  const on = and(
    cube.primaryKeys.map((pk, i) => ({
      kind: 'binary',
      op: '=',
      left: ident(keysAlias, keyItems[i].alias),
      right: dimensionExpr(model, pk),
    })),
  )!;
  return select({
    items: [
      ...dimItems.map((d) => ({ expr: ident(keysAlias, d.alias), alias: d.alias })),
      ...leaves.map((l) => ({ expr: aggregate(model, l), alias: leafAlias(l) })),
    ],
    from: { kind: 'subquery', select: keys, alias: keysAlias },
    joins: [{ type: 'left', source: cubeSource(model, cube), on }],
    groupBy: dimItems.map((_, i) => integer(i + 1)),
  });
}
