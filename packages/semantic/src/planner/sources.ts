import type { Cube, Model } from '../model/types.ts';
import type { JoinTree } from './join-graph.ts';
import { renderTemplate } from './member-sql.ts';
import type { JoinNode, Source } from './nodes.ts';

/** A cube as a FROM item, aliased by its name like Cube does (`orders AS "orders"`). */
export function cubeSource(model: Model, cube: Cube): Source {
  if (cube.sqlTable !== null) return { kind: 'table', sql: cube.sqlTable, alias: cube.name };
  return { kind: 'sql', sql: renderTemplate(model, cube.sql!), alias: cube.name };
}

/**
 * The root cube and LEFT JOINs along the join tree (Cube joins with LEFT JOIN). `only` keeps the
 * joins to those cubes (a subtree holding the root); `inner` turns the joins to those cubes into
 * INNER JOINs, for a subquery that may drop the rows where they are missing.
 */
export function joinedSources(
  model: Model,
  tree: JoinTree,
  only: ReadonlySet<string> | null = null,
  inner: ReadonlySet<string> = new Set(),
): { from: Source; joins: JoinNode[] } {
  return {
    from: cubeSource(model, model.cubes.get(tree.root)!),
    joins: tree.edges
      .filter((e) => only === null || only.has(e.to))
      .map((e) => ({
        type: inner.has(e.to) ? 'inner' : 'left',
        source: cubeSource(model, model.cubes.get(e.to)!),
        on: renderTemplate(model, e.join.sql),
      })),
  };
}
