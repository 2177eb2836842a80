/**
 * The model as Explore's tree shows it (`/v1/meta`): cubes and views, their folders (views) and
 * hierarchies, and every member with its title, description and type.
 */
import type { MetaResult } from '@tessera/client';

export type MemberKind = 'measure' | 'dimension' | 'segment';

export interface Member {
  name: string;
  /** The member's own title (`shortTitle`). */
  title: string;
  /** The cube's title and the member's, e.g. `Orders Count`. */
  fullTitle: string;
  description: string | null;
  kind: MemberKind;
  /** `number`, `string`, `time`, `boolean` (measures: the type of their values). */
  type: string;
  /** A measure's aggregation (`sum`, `count`, ...). */
  aggType?: string;
  format?: string;
  /** A measure's drill members (`cube.member`). */
  drillMembers: string[];
  primaryKey: boolean;
  cube: string;
}

export interface Folder {
  name: string;
  members: string[];
  folders: Folder[];
}

export interface Hierarchy {
  name: string;
  title: string;
  levels: string[];
}

export interface CubeNode {
  name: string;
  title: string;
  type: 'cube' | 'view';
  description: string | null;
  measures: Member[];
  dimensions: Member[];
  segments: Member[];
  folders: Folder[];
  hierarchies: Hierarchy[];
}

export interface ExploreModel {
  cubes: CubeNode[];
  members: Map<string, Member>;
}

type MetaCube = MetaResult['cubes'][number];

function formatOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string')
    return (value as { type: string }).type;
  return undefined;
}

function foldersOf(raw: unknown): Folder[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((f: { name?: unknown; members?: unknown[] }) => ({
    name: String(f.name ?? ''),
    members: (f.members ?? []).filter((m): m is string => typeof m === 'string'),
    folders: foldersOf((f.members ?? []).filter((m) => m && typeof m === 'object')),
  }));
}

export function modelOf(meta: MetaResult): ExploreModel {
  const members = new Map<string, Member>();
  const cubes = meta.cubes.map((cube: MetaCube) => {
    const member =
      (kind: MemberKind) =>
      (m: {
        name: string;
        title: string;
        shortTitle: string;
        description?: string;
        type?: string;
        aggType?: string;
        format?: unknown;
        drillMembers?: string[];
        primaryKey?: boolean;
      }): Member => {
        const out: Member = {
          name: m.name,
          title: m.shortTitle || m.title,
          fullTitle: m.title,
          description: m.description ?? null,
          kind,
          type: m.type ?? (kind === 'segment' ? 'segment' : 'string'),
          aggType: m.aggType,
          format: formatOf(m.format),
          drillMembers: m.drillMembers ?? [],
          primaryKey: m.primaryKey ?? false,
          cube: cube.name,
        };
        members.set(out.name, out);
        return out;
      };
    const raw = cube as MetaCube & { nestedFolders?: unknown; folders?: unknown; hierarchies?: unknown };
    const nested = foldersOf(raw.nestedFolders);
    return {
      name: cube.name,
      title: cube.title,
      type: cube.type === 'view' ? 'view' : 'cube',
      description: cube.description ?? null,
      measures: cube.measures.map(member('measure')),
      dimensions: cube.dimensions.map(member('dimension')),
      segments: cube.segments.map(member('segment')),
      folders: nested.length > 0 ? nested : foldersOf(raw.folders),
      hierarchies: (Array.isArray(raw.hierarchies) ? raw.hierarchies : []).map(
        (h: { name: string; title?: string; levels: string[] }) => ({
          name: h.name,
          title: h.title ?? h.name.split('.').pop() ?? h.name,
          levels: h.levels,
        }),
      ),
    } satisfies CubeNode;
  });
  return { cubes, members };
}

/** Does the member answer a search (its name, titles or description, any word order)? */
export function matches(member: Member, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = `${member.name} ${member.fullTitle} ${member.description ?? ''}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

/** What a member's badge says: a measure's aggregation or format, a dimension's type. */
export function typeLabel(member: Member): string {
  if (member.kind === 'segment') return 'segment';
  if (member.kind === 'measure') return member.format ?? member.aggType ?? member.type;
  return member.type;
}
