import type { Model } from '../model/types.ts';
import type { PlannedColumn } from '../planner/columns.ts';
import type { QueryMember, ResolvedQuery } from '../query/types.ts';
import { titleize } from './titles.ts';

export interface MemberAnnotation {
  readonly title: string;
  readonly shortTitle: string;
  readonly type: string;
  readonly description?: string;
  readonly format?: unknown;
  readonly meta?: unknown;
  readonly drillMembers?: readonly string[];
  readonly drillMembersGrouped?: {
    readonly measures: readonly string[];
    readonly dimensions: readonly string[];
  };
  readonly granularity?: { readonly name: string; readonly title: string; readonly interval?: string };
}

/** The `annotation` block of a Cube `/v1/load` result. */
export interface Annotation {
  readonly measures: Record<string, MemberAnnotation>;
  readonly dimensions: Record<string, MemberAnnotation>;
  readonly segments: Record<string, MemberAnnotation>;
  readonly timeDimensions: Record<string, MemberAnnotation>;
}

export function memberTitles(model: Model, m: QueryMember): { title: string; shortTitle: string } {
  const owner = m.view ?? model.cubes.get(m.owner)!;
  const ownerTitle = owner.title ?? titleize(owner.name);
  const name = m.viewMember?.name ?? m.member.name;
  const shortTitle = m.viewMember?.title ?? m.member.title ?? titleize(name);
  return { title: `${ownerTitle} ${shortTitle}`, shortTitle };
}

export function memberType(m: QueryMember): string {
  const member = m.member;
  if (member.kind === 'segment') return 'boolean';
  if (member.kind === 'dimension') return member.type;
  return ['string', 'time', 'boolean'].includes(member.type) ? member.type : 'number';
}

function describe(model: Model, m: QueryMember): MemberAnnotation {
  const member = m.member;
  const base: MemberAnnotation = {
    ...memberTitles(model, m),
    type: memberType(m),
    ...(member.description ? { description: member.description } : {}),
    ...(member.meta ? { meta: member.meta } : {}),
  };
  if (member.kind === 'measure') {
    const drill = member.drillMembers.map((d) => (d.includes('.') ? d : `${member.cube}.${d}`));
    return {
      ...base,
      ...(member.format !== null ? { format: member.format } : {}),
      drillMembers: drill,
      drillMembersGrouped: { measures: [], dimensions: drill },
    };
  }
  if (member.kind === 'dimension' && member.format !== null) return { ...base, format: member.format };
  return base;
}

export function buildAnnotation(
  model: Model,
  q: ResolvedQuery,
  columns: readonly PlannedColumn[],
): Annotation {
  const out: Annotation = { measures: {}, dimensions: {}, segments: {}, timeDimensions: {} };
  for (const m of q.measures) out.measures[m.path] = describe(model, m);
  for (const d of q.dimensions) out.dimensions[d.path] = describe(model, d);
  for (const s of q.segments) out.segments[s.path] = describe(model, s);
  for (const c of columns) {
    if (c.kind !== 'timeDimension') continue;
    const dim = c.member.member;
    const custom = dim.kind === 'dimension' ? dim.granularities.get(c.granularity!) : undefined;
    const granularity = {
      name: c.granularity!,
      title: custom?.title ?? titleize(c.granularity!),
      ...(custom ? { interval: custom.interval.text } : { interval: `1 ${c.granularity}` }),
    };
    out.timeDimensions[c.key] = { ...describe(model, c.member), granularity };
    out.timeDimensions[c.member.path] ??= describe(model, c.member);
  }
  return out;
}
