import { buildPolicies } from './policy.ts';
import { isRecord, memberList, type Raw, str } from './raw.ts';
import { type ErrorReporter, locate } from './reporter.ts';
import type { Cube, CubeMember, SourceLocation, View, ViewMember } from './types.ts';

/**
 * Views (https://cube.dev/docs/product/data-modeling/reference/view): `cubes: [{join_path,
 * includes, excludes, prefix, alias}]`. Each included member keeps the join path it was reached
 * by; the planner joins along these paths instead of searching the join graph.
 */
export function buildView(
  raw: Raw,
  cubes: ReadonlyMap<string, Cube>,
  fallback: SourceLocation,
  reporter: ErrorReporter,
): View {
  const name = String(raw.name);
  const loc = locate(raw, fallback);
  const members = new Map<string, ViewMember>();
  if (raw.measures !== undefined || raw.dimensions !== undefined || raw.segments !== undefined) {
    reporter.error(
      loc,
      name,
      null,
      'Members defined directly in a view are not supported; include them from cubes',
    );
  }
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
    const cube = cubes.get(joinPath[joinPath.length - 1])!;
    const prefix = entry.prefix === true ? `${str(entry.alias) ?? cube.name}_` : '';
    const excludes = new Set((Array.isArray(entry.excludes) ? entry.excludes : []).map(String));
    for (const exc of excludes)
      if (!memberOf(cube, exc)) report(exc, `View excludes unknown member ${cube.name}.${exc}`);
    for (const inc of includesOf(entry.includes, cube)) {
      const target = memberOf(cube, inc.name);
      if (!target) {
        report(inc.name, `View includes unknown member ${cube.name}.${inc.name}`);
        continue;
      }
      if (excludes.has(inc.name)) continue;
      const memberName = prefix + (inc.alias ?? inc.name);
      if (members.has(memberName)) {
        report(memberName, `Duplicate member name ${name}.${memberName} in view`);
        continue;
      }
      members.set(
        memberName,
        Object.freeze({
          kind: target.kind,
          view: name,
          name: memberName,
          path: `${name}.${memberName}`,
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
  const isPublic = raw.public ?? raw.shown ?? true;
  return Object.freeze({
    kind: 'view',
    name,
    title: str(raw.title),
    description: str(raw.description),
    meta: isRecord(raw.meta) ? raw.meta : null,
    public: isPublic !== false,
    members,
    accessPolicy: buildPolicies(
      raw.access_policy,
      name,
      new Set(members.keys()),
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
