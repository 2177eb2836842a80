import { isRecord, memberList, type Raw, str } from './raw.ts';
import { type ErrorReporter, locate } from './reporter.ts';
import type { Cube, Folder, Hierarchy, SourceLocation, ViewMember } from './types.ts';

/**
 * Hierarchies (https://cube.dev/docs/product/data-modeling/reference/hierarchies) and view folders
 * (https://cube.dev/docs/product/data-modeling/reference/view#folders): how members are grouped
 * for people browsing the model. They change no query; /v1/meta lists them (meta/meta.ts).
 */

/** `hierarchies: [{name, title, public, levels: [dimension, ...]}]` of a cube; levels as paths. */
export function buildHierarchies(
  raw: Raw,
  cube: string,
  memberNames: ReadonlySet<string>,
  fallback: SourceLocation,
  reporter: ErrorReporter,
): Map<string, Hierarchy> {
  const out = new Map<string, Hierarchy>();
  for (const h of memberList(raw.hierarchies)) {
    const loc = locate(h, fallback);
    const name = str(h.name);
    if (name === null || !/^[A-Za-z_]\w*$/.test(name)) {
      reporter.error(loc, cube, null, `Invalid or missing hierarchy name: ${String(h.name)}`);
      continue;
    }
    if (out.has(name) || memberNames.has(name)) {
      reporter.error(loc, cube, name, `${name} is defined more than once`);
      continue;
    }
    const levels = (Array.isArray(h.levels) ? h.levels : []).map((l) => levelPath(String(l), cube));
    if (levels.length === 0) reporter.error(loc, cube, name, 'A hierarchy needs levels: [dimension, ...]');
    out.set(
      name,
      Object.freeze({
        name,
        title: str(h.title),
        public: h.public !== false,
        levels: Object.freeze(levels),
        aliasMember: null,
        loc,
      }),
    );
  }
  return out;
}

/** `city`, `{CUBE}.city`, `CUBE.city` (JavaScript), `users.city` -> `cube.member`. */
function levelPath(written: string, cube: string): string {
  const trimmed = written.trim().replace(/^\$?\{\s*CUBE\s*\}\./, 'CUBE.');
  const parts = trimmed.replace(/^\$?\{\s*([^{}]*?)\s*\}$/, '$1').split('.');
  if (parts.length === 1) return `${cube}.${parts[0]}`;
  return `${parts[0] === 'CUBE' ? cube : parts[0]}.${parts.slice(1).join('.')}`;
}

/** Levels must be dimensions (Cube: "Only dimensions can be part of a hierarchy"). */
export function checkHierarchies(cubes: ReadonlyMap<string, Cube>, reporter: ErrorReporter): void {
  for (const cube of cubes.values()) {
    for (const h of cube.hierarchies?.values() ?? []) {
      for (const level of h.levels) {
        const [c, m] = level.split('.', 2) as [string, string];
        if (!cubes.get(c)?.dimensions.has(m ?? ''))
          reporter.error(h.loc, cube.name, h.name, `Hierarchy level ${level} is not a dimension`);
      }
    }
  }
}

/**
 * A cube's hierarchy included in a view: its levels become the view's members that stand for them,
 * levels the view leaves out are dropped, and so is a hierarchy left without levels.
 */
export function viewHierarchy(
  h: Hierarchy,
  cube: string,
  name: string,
  title: string | null,
  members: ReadonlyMap<string, ViewMember>,
): Hierarchy | null {
  const levels = h.levels.flatMap((path) => {
    const m = [...members.values()].find((vm) => vm.kind === 'dimension' && vm.target.path === path);
    return m ? [m.name] : [];
  });
  if (levels.length === 0) return null;
  return Object.freeze({
    ...h,
    name,
    title: title ?? h.title,
    levels: Object.freeze(levels),
    aliasMember: `${cube}.${h.name}`,
  });
}

/** `folders: [{name, includes: '*' | [member | {name, includes}]}]` of a view. */
export function buildFolders(
  value: unknown,
  view: string,
  known: ReadonlySet<string>,
  fallback: SourceLocation,
  reporter: ErrorReporter,
): Folder[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    reporter.error(fallback, view, null, 'folders must be a list of {name, includes}');
    return [];
  }
  const folder = (raw: unknown): Folder | null => {
    const loc = locate(raw, fallback);
    const name = isRecord(raw) ? str(raw.name) : null;
    if (!isRecord(raw) || name === null) {
      reporter.error(loc, view, null, 'A folder needs a name and includes');
      return null;
    }
    const includes = raw.includes === '*' ? [...known] : Array.isArray(raw.includes) ? raw.includes : [];
    const members: (string | Folder)[] = [];
    for (const inc of includes) {
      if (isRecord(inc)) {
        const nested = folder(inc);
        if (nested) members.push(nested);
      } else if (known.has(String(inc))) members.push(String(inc));
      else
        reporter.error(loc, view, String(inc), `Member ${String(inc)} included in folder ${name} not found`);
    }
    return Object.freeze({ name, members: Object.freeze(members) });
  };
  return value.map(folder).filter((f): f is Folder => f !== null);
}
