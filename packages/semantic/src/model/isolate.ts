import type { ModelError } from '../errors.ts';
import type { ModelFile } from './files.ts';
import { cubeRefs } from './template.ts';
import type { Cube, Model, PolicyFilter, SqlTemplate, View } from './types.ts';

/**
 * Issue 15: "A construct that is not supported is a model error with file, line and member, and
 * only that cube becomes unavailable: the rest of the deployment keeps serving." After compiling,
 * the cubes and views that cannot be trusted are taken out of the model:
 *
 * - a cube or view an error names (`ModelError.cube`);
 * - every cube and view of a file with an error that names none (a YAML syntax error, a JavaScript
 *   file that throws): a file that did not parse yields no cubes, so their names are read from
 *   the text as well as can be (`namesInText`), for the data API to say why they are missing;
 * - transitively, a cube whose SQL (member, segment, cube `sql`, `{other.sql()}`), multi-stage
 *   grain, drill members, hierarchy levels or row-level policy names an unavailable cube;
 * - a view with a member of an unavailable cube, or a join path through one.
 *
 * A join *to* an unavailable cube does not make the joining cube unavailable: only that join is
 * dropped, so queries that never cross it keep working and a query that would need it finds no
 * join path (a 400 from the planner, never SQL with a missing table). Likewise "Join to unknown
 * cube X" is not held against the joining cube when X is a cube of a file that did not parse.
 */
export interface Isolation {
  /** Only the healthy cubes and views; joins to unavailable cubes dropped. */
  readonly model: Model;
  /** Each unavailable cube or view, with the errors that disable it (its own or a dependency's). */
  readonly unavailable: ReadonlyMap<string, UnavailableCube>;
  /** Every model error with the cubes and views it disables (none: e.g. a dropped join). */
  readonly errors: readonly DisablingError[];
}

export interface UnavailableCube {
  readonly name: string;
  readonly kind: 'cube' | 'view' | 'unknown';
  /** The errors behind it: its own, or those of the cube it depends on. */
  readonly errors: readonly ModelError[];
  /** The unavailable cube it depends on, when it is unavailable only because of that one. */
  readonly through: string | null;
}

export interface DisablingError {
  readonly error: ModelError;
  readonly cubes: readonly string[];
}

const JOIN_TO_UNKNOWN = /^Join to unknown cube (\w+)$/;

export function isolateModel(
  model: Model,
  errors: readonly ModelError[],
  files: readonly ModelFile[],
): Isolation {
  if (errors.length === 0) return { model, unavailable: new Map(), errors: [] };

  const own = new Map<string, ModelError[]>();
  const kinds = new Map<string, UnavailableCube['kind']>();
  const add = (name: string, kind: UnavailableCube['kind'], error: ModelError) => {
    const list = own.get(name) ?? [];
    if (!list.includes(error)) list.push(error);
    own.set(name, list);
    if (!kinds.has(name) || kinds.get(name) === 'unknown') kinds.set(name, kind);
  };
  const kindOf = (name: string): UnavailableCube['kind'] =>
    model.cubes.has(name) ? 'cube' : model.views.has(name) ? 'view' : 'unknown';

  // File-level errors first: they decide which names are "cubes of a file that did not parse".
  const unparsed = new Set<string>();
  for (const error of errors) {
    if (error.cube !== null) continue;
    const inModel = [...model.cubes.values(), ...model.views.values()].filter(
      (c) => c.loc.file === error.file,
    );
    for (const c of inModel) add(c.name, c.kind, error);
    if (inModel.length === 0) {
      const file = files.find((f) => f.path === error.file);
      for (const name of file ? namesInText(file) : []) {
        if (model.cubes.has(name) || model.views.has(name)) continue; // the same name defined elsewhere
        unparsed.add(name);
        add(name, 'unknown', error);
      }
    }
  }
  const dropped: ModelError[] = [];
  for (const error of errors) {
    if (error.cube === null) continue;
    const target = JOIN_TO_UNKNOWN.exec(error.message)?.[1];
    if (target !== undefined && unparsed.has(target)) {
      dropped.push(error);
      continue;
    }
    add(error.cube, kindOf(error.cube), error);
  }

  // Dependencies, to a fixed point. `through` remembers the first unavailable cube that pulled
  // each dependant in, so its message can say which cube's errors to fix.
  const through = new Map<string, string>();
  const down = (name: string) => own.has(name) || through.has(name);
  let changed = true;
  while (changed) {
    changed = false;
    for (const cube of model.cubes.values()) {
      if (down(cube.name)) continue;
      const dep = cubeDependencies(cube).find((d) => d !== cube.name && down(d));
      if (dep !== undefined) {
        through.set(cube.name, dep);
        changed = true;
      }
    }
  }
  for (const view of model.views.values()) {
    if (down(view.name)) continue;
    const dep = viewDependencies(view).find(down);
    if (dep !== undefined) through.set(view.name, dep);
  }

  const rootErrors = (name: string, seen = new Set<string>()): ModelError[] => {
    if (own.has(name)) return own.get(name)!;
    const next = through.get(name);
    if (next === undefined || seen.has(next)) return [];
    seen.add(name);
    return rootErrors(next, seen);
  };
  const unavailable = new Map<string, UnavailableCube>();
  for (const name of own.keys())
    unavailable.set(name, {
      name,
      kind: kinds.get(name) ?? 'unknown',
      errors: own.get(name)!,
      through: null,
    });
  for (const [name, dep] of through)
    unavailable.set(name, { name, kind: kindOf(name), errors: rootErrors(name), through: dep });

  const cubes = new Map<string, Cube>();
  for (const [name, cube] of model.cubes) {
    if (unavailable.has(name)) continue;
    const joins = [...cube.joins].filter(([target]) => !unavailable.has(target));
    cubes.set(
      name,
      joins.length === cube.joins.size ? cube : Object.freeze({ ...cube, joins: new Map(joins) }),
    );
  }
  const views = new Map<string, View>([...model.views].filter(([name]) => !unavailable.has(name)));

  const disables = (error: ModelError) =>
    [...unavailable.values()].filter((u) => u.errors.includes(error)).map((u) => u.name);
  return {
    model: Object.freeze({ cubes, views }),
    unavailable,
    errors: errors.map((error) => ({ error, cubes: dropped.includes(error) ? [] : disables(error) })),
  };
}

/** Cubes a cube needs besides its joins: what its SQL and member settings name. */
export function cubeDependencies(cube: Cube): string[] {
  const out = new Set<string>();
  const sql = (t: SqlTemplate | null | undefined) => {
    if (t) for (const ref of cubeRefs(t)) out.add(ref);
  };
  const path = (p: string | null | undefined) => {
    const dot = p?.indexOf('.') ?? -1;
    if (p && dot > 0) out.add(p.slice(0, dot));
  };
  sql(cube.sql);
  for (const m of cube.measures.values()) {
    sql(m.sql);
    for (const f of m.filters) sql(f);
    for (const d of m.drillMembers) path(d);
    const ms = m.multiStage;
    if (ms) {
      for (const g of [...(ms.groupBy ?? []), ...ms.reduceBy, ...ms.addGroupBy]) out.add(g.cube);
      for (const o of ms.orderBy) sql(o.sql);
      for (const t of ms.timeShift) path(t.timeDimension);
    }
  }
  for (const d of cube.dimensions.values()) {
    sql(d.sql);
    for (const w of d.case?.when ?? []) sql(w.sql);
  }
  for (const s of cube.segments.values()) sql(s.sql);
  for (const h of cube.hierarchies?.values() ?? []) for (const level of h.levels) path(level);
  for (const policy of cube.accessPolicy ?? []) {
    const walk = (f: PolicyFilter) => {
      if ('member' in f) path(f.member);
      else for (const g of 'and' in f ? f.and : f.or) walk(g);
    };
    for (const f of policy.rowLevel?.filters ?? []) walk(f);
  }
  out.delete(cube.name);
  return [...out];
}

/** Cubes a view needs: those of its members and of their join paths. */
export function viewDependencies(view: View): string[] {
  const out = new Set<string>();
  for (const m of view.members.values()) {
    out.add(m.target.cube);
    for (const c of m.joinPath) out.add(c);
  }
  return [...out];
}

/**
 * The cube and view names a model file that did not parse declares, read from its text: YAML
 * `name:` keys of the items right under a top-level `cubes:` / `views:`, or JavaScript
 * `cube('name'` / `view('name'`. Best effort; a name it misses is simply unknown to the data API.
 */
export function namesInText(file: ModelFile): string[] {
  const names = new Set<string>();
  if (/\.js$/i.test(file.path)) {
    for (const m of file.content.matchAll(/\b(?:cube|view)\s*\(\s*['"`]([A-Za-z_]\w*)['"`]/g))
      names.add(m[1]!);
    return [...names];
  }
  let inSection = false;
  let itemIndent = -1;
  let keyIndent = -1;
  for (const line of file.content.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(line)) continue;
    const indent = line.length - line.trimStart().length;
    if (indent === 0) {
      inSection = /^(cubes|views)\s*:\s*(#.*)?$/.test(line);
      itemIndent = -1;
      keyIndent = -1;
      continue;
    }
    if (!inSection) continue;
    const item = /^(\s*)-(\s+)(.*)$/.exec(line);
    if (item && (itemIndent === -1 || item[1]!.length === itemIndent)) {
      itemIndent = item[1]!.length;
      keyIndent = itemIndent + 1 + item[2]!.length;
      const name = /^name\s*:\s*['"]?([A-Za-z_]\w*)['"]?\s*(#.*)?$/.exec(item[3]!);
      if (name) names.add(name[1]!);
      continue;
    }
    if (indent === keyIndent) {
      const name = /^\s*name\s*:\s*['"]?([A-Za-z_]\w*)['"]?\s*(#.*)?$/.exec(line);
      if (name) names.add(name[1]!);
    }
  }
  return [...names];
}
