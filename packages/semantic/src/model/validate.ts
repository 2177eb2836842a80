import { isBuiltInGranularity } from './interval.ts';
import type { ErrorReporter } from './reporter.ts';
import { cubeRefs, memberRefs, walkParts } from './template.ts';
import type { Cube, CubeMember, Measure } from './types.ts';

/**
 * Checks that need the whole model: join conditions, which member may reference which, and
 * reference cycles. Each finding is reported, none stops the others.
 */
export function validateCubes(cubes: ReadonlyMap<string, Cube>, reporter: ErrorReporter): void {
  for (const cube of cubes.values()) {
    for (const join of cube.joins.values()) {
      for (const ref of cubeRefs(join.sql)) {
        if (ref !== cube.name && ref !== join.name) {
          reporter.error(
            join.loc,
            cube.name,
            null,
            `Join to ${join.name} references ${ref}, which is neither side of the join`,
          );
        }
      }
    }
    for (const dim of cube.dimensions.values()) {
      for (const ref of memberRefs(dim.sql)) {
        const target = memberAt(cubes, ref.cube, ref.member);
        if (target?.kind === 'measure' && !dim.subQuery) {
          reporter.error(
            dim.loc,
            cube.name,
            dim.name,
            `Dimension references measure ${ref.cube}.${ref.member}; mark it sub_query: true`,
          );
        }
        if (target?.kind === 'segment')
          reporter.error(dim.loc, cube.name, dim.name, 'Dimensions cannot reference segments');
      }
    }
    for (const measure of cube.measures.values()) checkMeasure(cubes, cube, measure, reporter);
    for (const m of [...cube.measures.values(), ...cube.dimensions.values(), ...cube.segments.values()])
      checkGranularityRefs(cubes, m, reporter);
    for (const m of [...cube.measures.values(), ...cube.dimensions.values(), ...cube.segments.values()]) {
      if (hasCycle(cubes, m, new Set())) {
        reporter.error(m.loc, cube.name, m.name, `Circular reference: ${m.path} depends on itself`);
      }
    }
  }
}

function checkMeasure(
  cubes: ReadonlyMap<string, Cube>,
  cube: Cube,
  measure: Measure,
  reporter: ErrorReporter,
) {
  // a multi-stage measure aggregates other measures' values by design (planner/multi-stage.ts)
  const calculated =
    measure.multiStage != null ||
    measure.type === 'number' ||
    measure.type === 'string' ||
    measure.type === 'time' ||
    measure.type === 'boolean';
  for (const ref of memberRefs(measure.sql ?? [])) {
    const target = memberAt(cubes, ref.cube, ref.member);
    if (target?.kind === 'measure' && !calculated) {
      reporter.error(
        measure.loc,
        cube.name,
        measure.name,
        `Measure of type ${measure.type} cannot reference measure ${target.path}; use type number`,
      );
    }
  }
  for (const filter of measure.filters) {
    for (const ref of memberRefs(filter)) {
      if (memberAt(cubes, ref.cube, ref.member)?.kind === 'measure' && !measure.multiStage) {
        reporter.error(measure.loc, cube.name, measure.name, 'Measure filters cannot reference measures');
      }
    }
  }
  for (const drill of measure.drillMembers) {
    const [c, m] = drill.includes('.') ? drill.split('.', 2) : [cube.name, drill];
    if (!memberAt(cubes, c === 'CUBE' ? cube.name : c, m)) {
      reporter.error(measure.loc, cube.name, measure.name, `Unknown drill member ${drill}`);
    }
  }
}

export function memberAt(
  cubes: ReadonlyMap<string, Cube>,
  cubeName: string,
  name: string,
): CubeMember | undefined {
  const cube = cubes.get(cubeName);
  return cube?.measures.get(name) ?? cube?.dimensions.get(name) ?? cube?.segments.get(name);
}

function templatesOf(m: CubeMember) {
  if (m.kind === 'measure') return [m.sql ?? [], ...m.filters];
  if (m.kind === 'dimension') return [m.sql, ...(m.case?.when.map((w) => w.sql) ?? [])];
  return [m.sql];
}

function hasCycle(cubes: ReadonlyMap<string, Cube>, m: CubeMember, stack: Set<string>): boolean {
  if (stack.has(m.path)) return true;
  stack.add(m.path);
  for (const t of templatesOf(m)) {
    for (const ref of memberRefs(t)) {
      const next = memberAt(cubes, ref.cube, ref.member);
      if (next && hasCycle(cubes, next, stack)) return true;
    }
  }
  stack.delete(m.path);
  return false;
}

/** `{created_at.half_year}` names a time dimension and one of its granularities. */
function checkGranularityRefs(cubes: ReadonlyMap<string, Cube>, m: CubeMember, reporter: ErrorReporter) {
  for (const t of templatesOf(m)) {
    for (const p of walkParts(t)) {
      if (p.ref !== 'granularity') continue;
      const target = memberAt(cubes, p.cube, p.member);
      const ref = `{${p.cube}.${p.member}.${p.granularity}}`;
      if (target?.kind !== 'dimension' || target.type !== 'time')
        reporter.error(m.loc, m.cube, m.name, `${ref}: ${p.cube}.${p.member} is not a time dimension`);
      else if (!isBuiltInGranularity(p.granularity) && !target.granularities.has(p.granularity))
        reporter.error(m.loc, m.cube, m.name, `${ref}: ${target.path} has no granularity ${p.granularity}`);
    }
  }
}
