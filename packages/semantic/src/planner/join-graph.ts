import { JoinPathError, UserError } from '../errors.ts';
import type { Join, Model } from '../model/types.ts';

export interface JoinEdge {
  readonly from: string;
  readonly to: string;
  readonly join: Join;
}

/** Root cube and the joins to add, each `from` already joined when its edge comes. */
export interface JoinTree {
  readonly root: string;
  readonly edges: readonly JoinEdge[];
}

const cache = new WeakMap<Model, Map<string, JoinTree>>();

/**
 * Joins follow the direction they are declared in, as in Cube's JoinGraph: a join declared on
 * `orders` to `customers` lets a query start at orders and reach customers, not the reverse.
 * Views fix the paths (`hints`); otherwise every required cube is tried as the root and the
 * tree with the fewest joins wins (ties: the first cube named by the query).
 */
export function buildJoinTree(
  model: Model,
  required: readonly string[],
  hints: readonly (readonly string[])[],
): JoinTree {
  const key = `${required.join(',')}|${hints.map((h) => h.join('.')).join(',')}`;
  let perModel = cache.get(model);
  if (!perModel) {
    perModel = new Map();
    cache.set(model, perModel);
  }
  const hit = perModel.get(key);
  if (hit) return hit;
  const tree = hints.length > 0 ? fromHints(model, required, hints) : search(model, required);
  perModel.set(key, Object.freeze(tree));
  return tree;
}

function fromHints(
  model: Model,
  required: readonly string[],
  hints: readonly (readonly string[])[],
): JoinTree {
  const root = hints[0][0];
  const edges: JoinEdge[] = [];
  const joined = new Set([root]);
  for (const path of hints) {
    if (path[0] !== root)
      throw new UserError(`Members of views with different roots cannot be combined: ${root}, ${path[0]}`);
    for (let i = 1; i < path.length; i++) {
      if (joined.has(path[i])) continue;
      edges.push(edge(model, path[i - 1], path[i]));
      joined.add(path[i]);
    }
  }
  for (const cube of required) {
    if (joined.has(cube)) continue;
    const path = shortestPath(model, [...joined], cube);
    if (!path) throw new JoinPathError([root, cube]);
    for (let i = 1; i < path.length; i++) {
      if (!joined.has(path[i])) {
        edges.push(edge(model, path[i - 1], path[i]));
        joined.add(path[i]);
      }
    }
  }
  return { root, edges };
}

function search(model: Model, required: readonly string[]): JoinTree {
  let best: JoinTree | null = null;
  for (const root of required) {
    const parents = bfs(model, [root]);
    if (!required.every((c) => parents.has(c))) continue;
    const edges: JoinEdge[] = [];
    const joined = new Set([root]);
    const addPath = (cube: string) => {
      if (joined.has(cube)) return;
      const parent = parents.get(cube)!;
      addPath(parent);
      edges.push(edge(model, parent, cube));
      joined.add(cube);
    };
    for (const c of required) addPath(c);
    if (!best || edges.length < best.edges.length) best = { root, edges };
  }
  if (!best) throw new JoinPathError(required);
  return best;
}

/** Breadth-first over declared joins; maps each reachable cube to its parent. */
function bfs(model: Model, starts: readonly string[]): Map<string, string> {
  const parents = new Map<string, string>(starts.map((s) => [s, s]));
  const queue = [...starts];
  while (queue.length > 0) {
    const cube = model.cubes.get(queue.shift()!);
    if (!cube) continue;
    for (const target of cube.joins.keys()) {
      if (parents.has(target)) continue;
      parents.set(target, cube.name);
      queue.push(target);
    }
  }
  return parents;
}

function shortestPath(model: Model, starts: readonly string[], target: string): string[] | null {
  const parents = bfs(model, starts);
  if (!parents.has(target)) return null;
  const path = [target];
  while (!starts.includes(path[0])) path.unshift(parents.get(path[0])!);
  return path;
}

function edge(model: Model, from: string, to: string): JoinEdge {
  const join = model.cubes.get(from)?.joins.get(to);
  if (!join) throw new UserError(`Cube ${from} has no join to ${to}`);
  return { from, to, join };
}

/**
 * Cubes whose rows the joins repeat (Cube's JoinGraph.findMultiplicationFactorFor): walking the
 * tree away from the cube, some join goes from its `one` side to its `many` side, the `one` side
 * of a one_to_many or the target of a many_to_one. A cube next to a fan-out it does not take part
 * in (an order's invoice beside its line items) is repeated too.
 */
export function multipliedCubes(tree: JoinTree): Set<string> {
  const out = new Set<string>();
  const cubes = [tree.root, ...tree.edges.map((e) => e.to)];
  for (const cube of cubes) {
    const visited = new Set([cube]);
    const stack = [cube];
    while (stack.length > 0 && !out.has(cube)) {
      const at = stack.pop()!;
      for (const e of tree.edges) {
        const next = e.from === at ? e.to : e.to === at ? e.from : null;
        if (next === null || visited.has(next)) continue;
        const fansOut =
          (e.from === at && e.join.relationship === 'one_to_many') ||
          (e.to === at && e.join.relationship === 'many_to_one');
        if (fansOut) out.add(cube);
        visited.add(next);
        stack.push(next);
      }
    }
  }
  return out;
}
