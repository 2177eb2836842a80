import { buildFolders, viewHierarchy } from './hierarchies.ts';
import { buildPolicies } from './policy.ts';
import { isRecord, memberList, type Raw, str } from './raw.ts';
import { type ErrorReporter, locate } from './reporter.ts';
import type { Cube, CubeMember, Hierarchy, SourceLocation, View, ViewMember } from './types.ts';

/**
 * Views (https://cube.dev/docs/product/data-modeling/reference/view): `cubes: [{join_path,
 * includes, excludes, prefix, alias, split}]`. Each included member keeps the join path it was
 * reached by; the planner joins along these paths instead of searching the join graph.
 * `split: true` puts the entry's members in a view of their own, `<view>_<alias or cube>`, as
 * Cube's CubeSymbols does: the first view is returned first, then the split ones.
 */
export function buildViews(
  raw: Raw,
  cubes: ReadonlyMap<string, Cube>,
  fallback: SourceLocation,
  reporter: ErrorReporter,
): View[] {
  const splits = new Map<string, Map<string, ViewMember>>();
  const view = buildView(raw, cubes, fallback, reporter, splits);
  const split = [...splits].map(([name, members]) =>
    Object.freeze({
      ...view,
      name,
      title: null,
      description: null,
      meta: null,
      members,
      hierarchies: new Map(),
      folders: [],
      accessPolicy: null,
    }),
  );
  return [view, ...split];
}

export function buildView(
  raw: Raw,
  cubes: ReadonlyMap<string, Cube>,
  fallback: SourceLocation,
  reporter: ErrorReporter,
  splits: Map<string, Map<string, ViewMember>> = new Map(),
): View {
  const name = String(raw.name);
  const loc = locate(raw, fallback);
  const own = new Map<string, ViewMember>();
  const hierarchies: { h: Hierarchy; cube: string; name: string; title: string | null }[] = [];
  const entryPaths: string[][] = [];
  for (const entry of Array.isArray(raw.cubes) ? raw.cubes.filter(isRecord) : []) {
    const eloc = locate(entry, loc);
    const report = (member: string | null, m: string) => reporter.error(eloc, name, member, m);
    const joinPath = (str(entry.join_path) ?? '')
      .replace(/^\$?\{\s*|\s*\}$/g, '')
      .split('.')
      .filter(Boolean);
    if (joinPath.length === 0) {
      report(null, 'View cube entry needs join_path');
      continue;
    }
    if (!checkPath(joinPath, cubes, (m) => report(null, m))) continue;
    entryPaths.push(joinPath);
    const cube = cubes.get(joinPath[joinPath.length - 1])!;
    if (entry.split === true && entry.prefix === true)
      report(null, 'Using split together with prefix is not supported');
    // A split view is a view of its own without the parent's access_policy (Cube's CubeSymbols), so
    // members the parent's policy narrows would be readable through it: refuse rather than widen.
    if (entry.split === true && raw.access_policy !== undefined)
      report(
        null,
        'Using split in a view with an access_policy is not supported: the split view would not carry the policy',
      );
    const viewName = entry.split === true ? `${name}_${str(entry.alias) ?? cube.name}` : name;
    let members = own;
    if (viewName !== name) {
      members = splits.get(viewName) ?? new Map();
      splits.set(viewName, members);
    }
    const prefix = entry.prefix === true ? `${str(entry.alias) ?? cube.name}_` : '';
    const excludes = new Set((Array.isArray(entry.excludes) ? entry.excludes : []).map(String));
    for (const exc of excludes)
      if (!memberOf(cube, exc) && !cube.hierarchies?.has(exc))
        report(exc, `View excludes unknown member ${cube.name}.${exc}`);
    const includes = includesOf(entry.includes, cube);
    // A hierarchy included by name brings its levels of this cube along (Cube's prepareIncludes)
    for (const inc of entry.includes === '*' ? [] : [...includes]) {
      const h = memberOf(cube, inc.name) ? undefined : cube.hierarchies?.get(inc.name);
      for (const level of h?.levels ?? []) {
        const [c, m] = level.split('.', 2) as [string, string];
        if (c === cube.name && !includes.some((i) => i.name === m)) includes.push({ name: m });
      }
    }
    for (const inc of entry.includes === '*'
      ? [...(cube.hierarchies?.keys() ?? [])].map((n): Include => ({ name: n }))
      : includes) {
      const h = memberOf(cube, inc.name) ? undefined : cube.hierarchies?.get(inc.name);
      if (h && !excludes.has(inc.name) && members === own)
        hierarchies.push({
          h,
          cube: cube.name,
          name: prefix + (inc.alias ?? inc.name),
          title: inc.title ?? null,
        });
    }
    for (const inc of includes) {
      if (!memberOf(cube, inc.name) && cube.hierarchies?.has(inc.name)) continue;
      const target = memberOf(cube, inc.name);
      if (!target) {
        report(inc.name, `View includes unknown member ${cube.name}.${inc.name}`);
        continue;
      }
      if (excludes.has(inc.name)) continue;
      const memberName = prefix + (inc.alias ?? inc.name);
      if (members.has(memberName)) {
        report(memberName, `Duplicate member name ${viewName}.${memberName} in view`);
        continue;
      }
      members.set(
        memberName,
        Object.freeze({
          kind: target.kind,
          view: viewName,
          name: memberName,
          path: `${viewName}.${memberName}`,
          target,
          joinPath: Object.freeze(joinPath),
          title: inc.title ?? target.title,
          description: inc.description ?? target.description,
          meta: inc.meta ?? target.meta,
          public: target.public,
        }),
      );
    }
  }
  ownMembers(raw, name, own, entryPaths, cubes, loc, reporter);
  const isPublic = raw.public ?? raw.shown ?? true;
  const ownHierarchies = new Map<string, Hierarchy>();
  for (const { h, cube, name: hName, title } of hierarchies) {
    const vh = viewHierarchy(h, cube, hName, title, own);
    if (vh && ownHierarchies.has(hName))
      reporter.error(loc, name, hName, `Duplicate member name ${name}.${hName} in view`);
    else if (vh) ownHierarchies.set(hName, vh);
  }
  const folders = buildFolders(
    raw.folders,
    name,
    new Set([...own.keys(), ...ownHierarchies.keys()]),
    locate(raw, loc, 'folders'),
    reporter,
  );
  return Object.freeze({
    kind: 'view',
    name,
    title: str(raw.title),
    description: str(raw.description),
    meta: isRecord(raw.meta) ? raw.meta : null,
    public: isPublic !== false,
    members: own,
    hierarchies: ownHierarchies,
    folders: Object.freeze(folders),
    accessPolicy: buildPolicies(
      raw.access_policy,
      name,
      new Set(own.keys()),
      locate(raw, loc, 'access_policy'),
      reporter,
    ),
    loc,
  });
}

function checkPath(path: string[], cubes: ReadonlyMap<string, Cube>, report: (m: string) => void): boolean {
  for (let i = 0; i < path.length; i++) {
    const cube = cubes.get(path[i]);
    if (!cube) {
      report(`join_path ${path.join('.')}: unknown cube ${path[i]}`);
      return false;
    }
    if (i > 0 && !cubes.get(path[i - 1])!.joins.has(path[i])) {
      report(`join_path ${path.join('.')}: cube ${path[i - 1]} has no join to ${path[i]}`);
      return false;
    }
  }
  return true;
}

interface Include {
  name: string;
  alias?: string;
  title?: string;
  description?: string;
  meta?: Record<string, unknown>;
}

function includesOf(value: unknown, cube: Cube): Include[] {
  if (value === '*') {
    return [...cube.measures.keys(), ...cube.dimensions.keys(), ...cube.segments.keys()].map((name) => ({
      name,
    }));
  }
  return memberList(
    Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? { name: v } : v)) : [],
  ).map((r) => ({
    name: String(r.name),
    alias: str(r.alias) ?? undefined,
    title: str(r.title) ?? undefined,
    description: str(r.description) ?? undefined,
    meta: isRecord(r.meta) ? r.meta : undefined,
  }));
}

function memberOf(cube: Cube, name: string): CubeMember | undefined {
  return cube.measures.get(name) ?? cube.dimensions.get(name) ?? cube.segments.get(name);
}

const KINDS = [
  ['measures', 'measure'],
  ['dimensions', 'dimension'],
  ['segments', 'segment'],
] as const;

/**
 * Members a view defines itself. Cube refuses members a view owns (CubeEvaluator.prepareMembers:
 * "View defines own member") and keeps those whose SQL is one reference to a member of its cubes,
 * which then stand for that member. Such a reference is `{member}` / `{CUBE.member}` (a member
 * the view includes) or `{cube.member}` (a cube on one of the view's join paths); anything else
 * is a model error with file, line and member.
 */
function ownMembers(
  raw: Raw,
  view: string,
  members: Map<string, ViewMember>,
  entryPaths: readonly string[][],
  cubes: ReadonlyMap<string, Cube>,
  fallback: SourceLocation,
  reporter: ErrorReporter,
): void {
  for (const [key, kind] of KINDS) {
    for (const m of memberList(raw[key])) {
      const mloc = locate(m, fallback);
      const name = str(m.name);
      if (name === null || !/^[A-Za-z_]\w*$/.test(name)) {
        reporter.error(mloc, view, null, `Invalid or missing member name: ${String(m.name)}`);
        continue;
      }
      const report = (message: string) => reporter.error(mloc, view, name, message);
      if (members.has(name)) {
        report(`Duplicate member name ${view}.${name} in view`);
        continue;
      }
      const ref = /^\s*\$?\{\s*([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?\s*\}\s*$/.exec(str(m.sql) ?? '');
      if (!ref) {
        report(
          `View ${view} defines its own member ${name}: a view member's sql must be one reference to a member of its cubes ({cube.member})`,
        );
        continue;
      }
      const [, head, tail] = ref as unknown as [string, string, string | undefined];
      let target: CubeMember | undefined;
      let joinPath: readonly string[] | undefined;
      if (tail === undefined || head === 'CUBE' || head === view) {
        const included = members.get(tail ?? head);
        target = included?.target;
        joinPath = included?.joinPath;
      } else {
        const cube = cubes.get(head);
        target = cube && memberOf(cube, tail);
        // the first join path through that cube, up to it
        const path = entryPaths.find((p) => p.includes(head));
        joinPath = path?.slice(0, path.indexOf(head) + 1);
      }
      if (!target || !joinPath) {
        report(`${ref[0].trim()} is not a member of a cube on the join paths of view ${view}`);
        continue;
      }
      if (target.kind !== kind) {
        report(`${name} is listed under ${key} but ${target.path} is a ${target.kind}`);
        continue;
      }
      members.set(
        name,
        Object.freeze({
          kind,
          view,
          name,
          path: `${view}.${name}`,
          target,
          joinPath: Object.freeze([...joinPath]),
          title: str(m.title) ?? target.title,
          description: str(m.description) ?? target.description,
          meta: isRecord(m.meta) ? m.meta : target.meta,
          public: (m.public ?? m.shown ?? target.public) !== false,
        }),
      );
    }
  }
}
