import { UserError } from '../errors.ts';
import type { Cube, Measure, Model } from '../model/types.ts';
import { buildJoinTree, multipliedCubes } from './join-graph.ts';
import {
  aggregate,
  aggregateOfType,
  countValue,
  dimensionExpr,
  isCalculated,
  measureArg,
} from './member-sql.ts';
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
  select,
} from './nodes.ts';
import { cubesOfMember } from './required.ts';
import { cubeSource, joinedSources } from './sources.ts';

export function leafAlias(m: Measure): string {
  return `${m.cube}__${m.name}`.toLowerCase();
}

/**
 * Measures of a cube whose rows the joins multiply (Cube's "multiplied measures",
 * BaseQuery.aggregateSubQuery): first select the DISTINCT (dimensions, primary key) pairs over
 * the full join and filters, then join the cube back on its primary key and aggregate. Each
 * cube row then counts once per dimension group, however many rows the joins produced.
 * Measures whose SQL reads other cubes are read from a join of those cubes instead (Cube's
 * aggregateSubQueryMeasureJoin), which must not repeat the cube's rows.
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
  const others = [...new Set(leaves.flatMap((l) => cubesOfMember(model, l)).filter((c) => c !== cube.name))];
  let back: Source = cubeSource(model, cube);
  let value = (l: Measure): Expr => aggregate(model, l);
  let key = (i: number): Expr => dimensionExpr(model, cube.primaryKeys[i]);
  if (others.length > 0) {
    const alias = `${cube.name}__measure_join`;
    back = { kind: 'subquery', select: measureJoin(model, cube, leaves, others, keyItems), alias };
    value = (l) => aggregateOfType(l.type, ident(alias, leafAlias(l)))!;
    key = (i) => ident(alias, keyItems[i].alias);
  }
  const on = and(
    cube.primaryKeys.map((_, i) => ({
      kind: 'binary',
      op: '=',
      left: ident(keysAlias, keyItems[i].alias),
      right: key(i),
    })),
  )!;
  return select({
    items: [
      ...dimItems.map((d) => ({ expr: ident(keysAlias, d.alias), alias: d.alias })),
      ...leaves.map((l) => ({ expr: value(l), alias: leafAlias(l) })),
    ],
    from: { kind: 'subquery', select: keys, alias: keysAlias },
    joins: [{ type: 'left', source: back, on }],
    groupBy: dimItems.map((_, i) => integer(i + 1)),
  });
}

/** The cube's rows with the row-level arguments of its measures, joined to the cubes they read. */
function measureJoin(
  model: Model,
  cube: Cube,
  leaves: readonly Measure[],
  others: readonly string[],
  keyItems: readonly SelectItem[],
): Select {
  const tree = buildJoinTree(model, [cube.name, ...others], []);
  if (multipliedCubes(tree).has(cube.name)) {
    const leaf = leaves.find((l) => cubesOfMember(model, l).some((c) => c !== cube.name))!;
    throw new UserError(
      `'${leaf.path}' references cubes that lead to row multiplication. Please rewrite it using sub query.`,
    );
  }
  return select({
    items: [
      ...keyItems,
      ...leaves.map((l) => {
        if (isCalculated(l) || !aggregateOfType(l.type, raw('1'))) {
          throw new UserError(
            `Measure ${l.path} cannot be computed over distinct keys: it reads other cubes`,
          );
        }
        return { expr: measureArg(model, l, countValue(model, l) ?? raw('1')), alias: leafAlias(l) };
      }),
    ],
    ...joinedSources(model, tree),
  });
}
