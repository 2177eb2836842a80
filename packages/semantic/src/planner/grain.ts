import type { Measure, Model, SqlTemplate } from '../model/types.ts';
import type { QueryMember } from '../query/types.ts';
import type { JoinTree } from './join-graph.ts';
import { isCalculated } from './member-sql.ts';
import { cubesOfMember } from './required.ts';

/**
 * Measures of a cube multiplied by a one-to-many join, aggregated at the cube's own grain instead
 * of over distinct keys of the full join (fanout.ts), where that gives the same numbers.
 *
 * The "core" is the smallest subtree of the join tree holding the root and every cube that the
 * dimensions and WHERE filters name. The full join is the core with LEFT JOINed subtrees that
 * nothing groups or filters on, so it holds exactly the core's (dimensions, row) pairs: a cube
 * of the core counted once per row of the core join is counted as Cube's distinct keys count
 * it. That holds when no join inside the core fans out (no one_to_many edge there); a core cube
 * that a many_to_one join repeats (a customer per order) keeps the distinct-keys form, over the
 * core only. Measures of the other cubes stay over the full join, as Cube computes them
 * (including the repetitions a second one-to-many branch would add).
 *
 * When those other measures all belong to one cube whose aggregates ignore the NULL rows a LEFT
 * JOIN adds, their joins become INNER JOINs: the rows dropped add nothing to the aggregates, and a
 * group that only had such rows comes back NULL from the outer LEFT JOIN (0 for counts).
 */
export interface GrainPlan {
  readonly core: ReadonlySet<string>;
  /** Core cubes that a join inside the core repeats (many_to_one from the root side). */
  readonly repeated: ReadonlySet<string>;
  /** Leaves aggregated over the core join (repeated cubes: only duplicate-insensitive ones). */
  readonly coreLeaves: readonly Measure[];
  /** Additive leaves of repeated core cubes: distinct keys over the core join. */
  readonly coreKeys: ReadonlyMap<string, readonly Measure[]>;
  /** Leaves over the full join, as in the plain plan. */
  readonly branchLeaves: readonly Measure[];
  /** Cubes whose joins may be INNER JOINs in the branch subquery (path to one measured cube). */
  readonly innerPath: ReadonlySet<string>;
  /** Additive leaves of multiplied cubes outside the core: distinct keys over the full join. */
  readonly fullKeys: ReadonlyMap<string, readonly Measure[]>;
}

export function grainPlan(
  model: Model,
  tree: JoinTree,
  /** Members the dimensions, segments and WHERE filters (user, security, date ranges) use. */
  grouping: readonly QueryMember[],
  /** Leaves the plain plan computes over the full join, and per multiplied cube over keys. */
  mainLeaves: readonly Measure[],
  keyedLeaves: ReadonlyMap<string, readonly Measure[]>,
  multiplied: ReadonlySet<string>,
): GrainPlan | null {
  const parent = new Map(tree.edges.map((e) => [e.to, e]));
  const core = new Set<string>();
  const addPath = (cube: string) => {
    for (let c: string | undefined = cube; c !== undefined && !core.has(c); c = parent.get(c)?.from) {
      core.add(c);
    }
  };
  addPath(tree.root);
  for (const m of grouping) for (const c of cubesOfMember(model, m.member)) addPath(c);
  const edgesInCore = tree.edges.filter((e) => core.has(e.to));
  if (edgesInCore.some((e) => e.join.relationship === 'one_to_many')) return null;
  const repeated = new Set<string>();
  for (const c of core) {
    for (let e = parent.get(c); e; e = parent.get(e.from)) {
      if (e.join.relationship === 'many_to_one') repeated.add(c);
    }
  }
  const inCore = (leaf: Measure) => cubesOfMember(model, leaf).every((c) => core.has(c));

  const coreLeaves: Measure[] = [];
  const branchLeaves: Measure[] = [];
  for (const leaf of mainLeaves) {
    // duplicate-insensitive leaves of multiplied cubes; other cubes keep Cube's full-join numbers
    if (multiplied.has(leaf.cube) && core.has(leaf.cube) && inCore(leaf)) coreLeaves.push(leaf);
    else branchLeaves.push(leaf);
  }
  const coreKeys = new Map<string, Measure[]>();
  const fullKeys = new Map<string, Measure[]>();
  for (const [cube, leaves] of keyedLeaves) {
    for (const leaf of leaves) {
      if (!core.has(cube) || !inCore(leaf)) fullKeys.set(cube, [...(fullKeys.get(cube) ?? []), leaf]);
      else if (repeated.has(cube)) coreKeys.set(cube, [...(coreKeys.get(cube) ?? []), leaf]);
      else coreLeaves.push(leaf);
    }
  }
  const everyCubeInCore = tree.edges.every((e) => core.has(e.to));
  // the gain: a multiplied cube counted over the core alone, or keys over a smaller join
  const gains =
    coreLeaves.some((l) => multiplied.has(l.cube) && !repeated.has(l.cube)) ||
    (coreKeys.size > 0 && !everyCubeInCore);
  if (!gains) return null;
  if (everyCubeInCore) {
    // the full join is the core join: one subquery for both
    coreLeaves.push(...branchLeaves);
    branchLeaves.length = 0;
  }
  return {
    core,
    repeated,
    coreLeaves,
    coreKeys,
    branchLeaves,
    innerPath: innerPath(model, branchLeaves, core, parent),
    fullKeys,
  };
}

function innerPath(
  model: Model,
  leaves: readonly Measure[],
  core: ReadonlySet<string>,
  parent: ReadonlyMap<string, { from: string }>,
): Set<string> {
  const cube = leaves[0]?.cube;
  if (cube === undefined || core.has(cube)) return new Set();
  if (!leaves.every((l) => l.cube === cube && ignoresNullRows(model, l))) return new Set();
  const path = new Set<string>();
  for (let c: string | undefined = cube; c !== undefined && !core.has(c); c = parent.get(c)?.from)
    path.add(c);
  return path;
}

/**
 * True when the measure's aggregate skips the all-NULL rows a LEFT JOIN adds for a missing match:
 * counts of the primary key, and aggregates of arithmetic over the cube's own columns only.
 */
function ignoresNullRows(model: Model, m: Measure): boolean {
  if (isCalculated(m) || m.type === 'running_total') return false;
  const cube = model.cubes.get(m.cube)!;
  if (m.sql === null) return m.type === 'count' && cube.primaryKeys.length > 0;
  return strictArithmetic(model, m.sql, m.cube, 0);
}

/** Arithmetic over column references (`§` stands for the cube's alias, a character SQL does not use) and numbers. */
const ARITHMETIC = /^(?:\s+|\d+(?:\.\d+)?|[-+*/%()]|§\.(?:[A-Za-z_]\w*|"[^"]+"))*$/;

/** Column references of `cube` combined by arithmetic: NULL as soon as the cube's row is. */
function strictArithmetic(model: Model, t: SqlTemplate, cube: string, depth: number): boolean {
  if (depth > 8) return false;
  let text = '';
  for (const p of t) {
    if (typeof p === 'string') text += p;
    else if (p.ref !== 'cube' && p.ref !== 'member') return false;
    else if (p.cube !== cube) return false;
    else if (p.ref === 'cube') text += '§';
    else {
      const dim = model.cubes.get(cube)!.dimensions.get(p.member);
      if (!dim || dim.case || !strictArithmetic(model, dim.sql, cube, depth + 1)) return false;
      text += '§.x';
    }
  }
  return text.includes('§.') && ARITHMETIC.test(text);
}
