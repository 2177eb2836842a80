import { cubeRefs } from '../model/template.ts';
import type { CubeMember, Model } from '../model/types.ts';
import type { FilterNode, QueryMember } from '../query/types.ts';

const cache = new WeakMap<CubeMember, readonly string[]>();

/** Cubes a member's SQL needs joined: its own and every cube its templates reach. */
export function cubesOfMember(model: Model, m: CubeMember): readonly string[] {
  const hit = cache.get(m);
  if (hit) return hit;
  const out = new Set<string>([m.cube]);
  const visit = (member: CubeMember, seen: Set<CubeMember>) => {
    if (seen.has(member)) return;
    seen.add(member);
    // a sub_query dimension's cubes are joined inside its own subquery (sub-query.ts)
    if (member.kind === 'dimension' && member.subQuery) return;
    const templates =
      member.kind === 'measure'
        ? [member.sql ?? [], ...member.filters]
        : member.kind === 'dimension'
          ? [member.sql, ...(member.case?.when.map((w) => w.sql) ?? [])]
          : [member.sql];
    for (const t of templates) {
      for (const c of cubeRefs(t)) out.add(c);
      for (const p of t) {
        if (typeof p === 'string' || p.ref !== 'member') continue;
        const cube = model.cubes.get(p.cube)!;
        const next =
          cube.measures.get(p.member) ?? cube.dimensions.get(p.member) ?? cube.segments.get(p.member);
        if (next) visit(next, seen);
      }
    }
  };
  visit(m, new Set());
  const result = Object.freeze([...out]);
  cache.set(m, result);
  return result;
}

export function filterMembers(nodes: readonly FilterNode[], out: QueryMember[] = []): QueryMember[] {
  for (const n of nodes) {
    if (n.kind === 'member') out.push(n.member);
    else if (n.kind === 'and' || n.kind === 'or') filterMembers(n.items, out);
  }
  return out;
}
