import { printTemplate } from '../model/template.ts';
import type { Cube, CubeMember, Folder, Model, View } from '../model/types.ts';
import { findMember } from '../query/members.ts';
import type { QueryMember } from '../query/types.ts';
import { memberTitles, memberType } from '../result/annotation.ts';
import { titleize } from '../result/titles.ts';
import { resolveAccess } from '../security/access.ts';
import type { SecurityContext } from '../security/context.ts';
import { connectedComponents } from './components.ts';

export interface MetaOptions {
  /** Cube's `/v1/meta?extended`: adds member SQL and cube joins. */
  readonly extended?: boolean;
}

export type MetaMember = Record<string, unknown> & { readonly name: string };

export interface MetaCube {
  readonly name: string;
  readonly title: string;
  readonly type: 'cube' | 'view';
  readonly public: boolean;
  readonly isVisible: boolean;
  readonly connectedComponent?: number;
  readonly description?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly measures: MetaMember[];
  readonly dimensions: MetaMember[];
  readonly segments: MetaMember[];
  readonly joins?: { name: string; relationship: string; sql?: string }[];
  /** Cube's `hierarchies`, `folders` (flat: nested folders' members merged into their root) and `nestedFolders`. */
  readonly hierarchies: MetaHierarchy[];
  readonly folders: { name: string; members: string[] }[];
  readonly nestedFolders: MetaFolder[];
}

export interface MetaHierarchy {
  readonly name: string;
  readonly title?: string;
  readonly levels: string[];
  readonly public: boolean;
  readonly aliasMember?: string;
}

export interface MetaFolder {
  readonly name: string;
  readonly members: (string | MetaFolder)[];
}

/**
 * Cube's `/v1/meta` for a security context: cubes and views with the members this context may
 * see. Non-public members and members hidden by access policies are left out, as Cube's
 * filterVisibleItemsInMeta does; a cube or view left with no member is left out too.
 */
export function getMeta(
  model: Model,
  ctx: SecurityContext,
  options: MetaOptions = {},
): { cubes: MetaCube[] } {
  const access = resolveAccess(model, ctx);
  const components = connectedComponents(model);
  const owners: (Cube | View)[] = [...model.cubes.values(), ...model.views.values()];
  const cubes: MetaCube[] = [];
  for (const owner of owners) {
    if (!owner.public) continue;
    const members = (kind: CubeMember['kind']) =>
      memberNames(owner, kind)
        .map((name) => findMember(model, `${owner.name}.${name}`)!)
        .filter((m) => visible(m) && !access.hiddenMembers.has(m.path))
        .map((m) => describe(model, m, options.extended === true));
    const measures = members('measure');
    const dimensions = members('dimension');
    const segments = members('segment');
    if (measures.length + dimensions.length + segments.length === 0) continue;
    const shown = (path: string) => {
      const m = findMember(model, path);
      return m !== null && m !== undefined && visible(m) && !access.hiddenMembers.has(m.path);
    };
    const hierarchies = metaHierarchies(owner, shown);
    const nestedFolders = metaFolders(owner, shown, new Set(hierarchies.map((h) => h.name)));
    cubes.push({
      name: owner.name,
      title: owner.title ?? titleize(owner.name),
      type: owner.kind,
      public: true,
      isVisible: true,
      ...(owner.kind === 'cube' ? { connectedComponent: components.get(owner.name) } : {}),
      ...(owner.description ? { description: owner.description } : {}),
      ...(owner.meta ? { meta: owner.meta } : {}),
      measures,
      dimensions,
      segments,
      hierarchies,
      folders: nestedFolders.map((f) => ({ name: f.name, members: [...new Set(flatMembers(f))] })),
      nestedFolders,
      ...(options.extended && owner.kind === 'cube'
        ? {
            joins: [...owner.joins.values()].map((j) => ({
              name: j.name,
              relationship: j.relationship,
              sql: printTemplate(j.sql),
            })),
          }
        : {}),
    });
  }
  return { cubes };
}

function memberNames(owner: Cube | View, kind: CubeMember['kind']): string[] {
  if (owner.kind === 'view')
    return [...owner.members.values()].filter((m) => m.kind === kind).map((m) => m.name);
  const map = kind === 'measure' ? owner.measures : kind === 'dimension' ? owner.dimensions : owner.segments;
  return [...map.keys()];
}

/**
 * Cube's CubeToMetaTransformer.isVisible: members are public unless the model says otherwise,
 * except primary keys, which are listed only when the model makes them public.
 */
function visible(m: QueryMember): boolean {
  if (m.viewMember) return m.viewMember.public;
  const member = m.member;
  if (member.kind === 'dimension' && member.primaryKey) return member.declaredPublic === true;
  return member.public;
}

function describe(model: Model, m: QueryMember, extended: boolean): MetaMember {
  const member = m.member;
  const common = {
    name: m.path,
    ...memberTitles(model, m),
    ...(member.description ? { description: member.description } : {}),
    ...(member.meta ? { meta: member.meta } : {}),
    public: true,
    isVisible: true,
    ...(m.viewMember ? { aliasMember: member.path } : {}),
  };
  if (member.kind === 'measure') {
    return {
      ...common,
      type: memberType(m),
      aggType: member.type,
      cumulative: member.rollingWindow !== null,
      cumulativeTotal: member.rollingWindow !== null,
      drillMembers: member.drillMembers.map((d) => (d.includes('.') ? d : `${member.cube}.${d}`)),
      drillMembersGrouped: {
        measures: [],
        dimensions: member.drillMembers.map((d) => (d.includes('.') ? d : `${member.cube}.${d}`)),
      },
      ...(member.format !== null ? { format: member.format } : {}),
      ...(extended && member.sql ? { sql: printTemplate(member.sql) } : {}),
    };
  }
  if (member.kind === 'dimension') {
    return {
      ...common,
      type: member.type,
      primaryKey: member.primaryKey,
      suggestFilterValues: true,
      ...(member.format !== null ? { format: member.format } : {}),
      // the custom granularities only, as written (the built-in ones are implied)
      ...(member.granularities.size > 0
        ? {
            granularities: [...member.granularities.values()].map((g) => ({
              name: g.name,
              title: g.title ?? titleize(g.name),
              interval: g.interval.text,
              ...(g.offset ? { offset: g.offset.text } : {}),
              ...(g.origin ? { origin: g.origin } : {}),
            })),
          }
        : {}),
      ...(extended ? { sql: printTemplate(member.sql) } : {}),
    };
  }
  return { ...common, ...(extended ? { sql: printTemplate(member.sql) } : {}) };
}

/**
 * Cube's CubeToMetaTransformer lists a cube's hierarchies with their levels as member paths, and
 * a view's with the view's own members and `aliasMember`, the cube's hierarchy. Levels this
 * context may not see are left out, and so is a hierarchy left without levels or not public.
 */
function metaHierarchies(owner: Cube | View, shown: (path: string) => boolean): MetaHierarchy[] {
  const out: MetaHierarchy[] = [];
  for (const h of owner.hierarchies?.values() ?? []) {
    if (!h.public) continue;
    const levels = h.levels.map((l) => (owner.kind === 'view' ? `${owner.name}.${l}` : l)).filter(shown);
    if (levels.length === 0) continue;
    out.push({
      name: `${owner.name}.${h.name}`,
      ...(h.title !== null ? { title: h.title } : {}),
      levels,
      public: true,
      ...(h.aliasMember !== null ? { aliasMember: h.aliasMember } : {}),
    });
  }
  return out;
}

/** A view's folders with its members' paths, members this context may not see left out. */
function metaFolders(
  owner: Cube | View,
  shown: (path: string) => boolean,
  hierarchies: ReadonlySet<string>,
): MetaFolder[] {
  if (owner.kind !== 'view') return [];
  const folder = (f: Folder): MetaFolder => ({
    name: f.name,
    members: f.members.flatMap((m): (string | MetaFolder)[] => {
      if (typeof m !== 'string') return [folder(m)];
      const path = `${owner.name}.${m}`;
      return shown(path) || hierarchies.has(path) ? [path] : [];
    }),
  });
  return (owner.folders ?? []).map(folder);
}

function flatMembers(f: MetaFolder): string[] {
  return f.members.flatMap((m) => (typeof m === 'string' ? [m] : flatMembers(m)));
}
