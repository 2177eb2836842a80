import type { Model } from '../model/types.ts';
import type { FilterNode, QueryMember, ResolvedQuery } from '../query/types.ts';
import { buildJoinTree } from './join-graph.ts';
import { cubesOfMember, filterMembers } from './required.ts';

/** Row-level filter of a cube joined without being named by the query (null: none). */
export type CubeSecurity = (cube: string) => FilterNode | null;

/**
 * The join tree of every cube the query needs, plus the row-level filters of every joined cube
 * whose policy the query does not carry yet (normalizeQuery adds those of the cubes and views it
 * names). A join must not widen what the context can read, and neither may a view: reading
 * through a view still reads its cubes, so their filters apply under the view's own (Cube's
 * "Policies on views" and "Policies on cubes", https://cube.dev/docs/product/auth/data-access-policies).
 * A cube's filter may reach further cubes through member SQL; those are joined too.
 */
export function joinTree(model: Model, q: ResolvedQuery, cubeSecurity: CubeSecurity, governAll = false) {
  const members = [
    ...q.measures,
    ...q.dimensions,
    ...q.timeDimensions.map((t) => t.member),
    ...q.segments,
    ...filterMembers(q.filters),
    ...filterMembers(q.security),
  ];
  const required: string[] = [];
  const hints = new Map<string, readonly string[]>();
  const need = (list: readonly QueryMember[]) => {
    for (const m of list) {
      for (const c of cubesOfMember(model, m.member)) if (!required.includes(c)) required.push(c);
      if (m.viewMember) hints.set(m.viewMember.joinPath.join('.'), m.viewMember.joinPath);
    }
  };
  need(members);
  // cubes named directly: their filters are in q.security already
  // (a planner-made query, a sub_query dimension's, carries none: every cube's filter applies)
  const governed = new Set(governAll ? [] : members.filter((m) => m.view === null).map((m) => m.owner));
  const filters = new Map<string, FilterNode>();
  for (;;) {
    const tree = buildJoinTree(model, required, [...hints.values()]);
    const size = required.length;
    for (const cube of [tree.root, ...tree.edges.map((e) => e.to)]) {
      if (governed.has(cube) || filters.has(cube)) continue;
      const f = cubeSecurity(cube);
      if (!f) continue;
      filters.set(cube, f);
      need(filterMembers([f]));
    }
    if (required.length === size) return { tree, security: [...q.security, ...filters.values()] };
  }
}
