import type { AccessPolicy, Model, PolicyFilter } from '../model/types.ts';
import type { QueryFilter } from '../query/types.ts';
import { evaluateCondition, groupsOf, interpolate, type SecurityContext } from './context.ts';

/**
 * What a security context may see and which rows it may read, after Cube's access policies
 * (https://cube.dev/docs/product/auth/data-access-policies):
 * - a cube or view without `access_policy` is open;
 * - with policies, only those whose group matches (`*` matches all) and whose conditions hold
 *   apply; if none applies, nothing of it is visible and no row is readable;
 * - a member is visible when any applying policy includes it (member_level absent = all);
 * - rows: if any applying policy has no row_level or `allow_all`, no filter; otherwise the
 *   policies' filters are OR-ed, each policy's own filters AND-ed.
 * Views add their policies to their cubes' ("Policies on views" / "Policies on cubes" in the page
 * above): data read through a view is still data of its cubes, so a view member aliasing a
 * hidden cube member is hidden too, and the planner ANDs the row filters of every cube it joins
 * (keyed here by cube name) with the view's own (keyed by view name). A view can only narrow.
 */
export interface AccessResolution {
  /** Full member paths (`cube.member`, `view.member`) hidden from this context. */
  readonly hiddenMembers: ReadonlySet<string>;
  /** Row filters per cube or view name, in query filter form; `false` denies all rows. */
  readonly rowFilters: ReadonlyMap<string, QueryFilter | false>;
}

const cache = new WeakMap<Model, Map<string, AccessResolution>>();

export function resolveAccess(model: Model, ctx: SecurityContext): AccessResolution {
  let perModel = cache.get(model);
  if (!perModel) {
    perModel = new Map();
    cache.set(model, perModel);
  }
  const key = JSON.stringify(ctx);
  const hit = perModel.get(key);
  if (hit) return hit;
  const hiddenMembers = new Set<string>();
  const rowFilters = new Map<string, QueryFilter | false>();
  const owners = [
    ...[...model.cubes.values()].map((c) => ({
      name: c.name,
      policies: c.accessPolicy,
      members: [...c.measures.keys(), ...c.dimensions.keys(), ...c.segments.keys()],
    })),
    ...[...model.views.values()].map((v) => ({
      name: v.name,
      policies: v.accessPolicy,
      members: [...v.members.keys()],
    })),
  ];
  for (const owner of owners) {
    if (owner.policies === null) continue;
    const applying = owner.policies.filter((p) => applies(p, ctx));
    for (const m of owner.members)
      if (!applying.some((p) => memberAllowed(p, m))) hiddenMembers.add(`${owner.name}.${m}`);
    const rows = rowFilter(owner.name, applying, ctx);
    if (rows !== null) rowFilters.set(owner.name, rows);
  }
  // a view member is no way around its cube's member-level policy
  for (const view of model.views.values())
    for (const vm of view.members.values()) if (hiddenMembers.has(vm.target.path)) hiddenMembers.add(vm.path);
  const result = Object.freeze({ hiddenMembers, rowFilters });
  if (perModel.size > 1000) perModel.clear();
  perModel.set(key, result);
  return result;
}

function applies(p: AccessPolicy, ctx: SecurityContext): boolean {
  const groups = groupsOf(ctx);
  const groupOk = p.groups.includes('*') || p.groups.some((g) => groups.includes(g));
  return groupOk && p.conditions.every((c) => evaluateCondition(c, ctx));
}

function memberAllowed(p: AccessPolicy, member: string): boolean {
  if (p.memberLevel === null) return true;
  const included = p.memberLevel.includes === '*' || p.memberLevel.includes.includes(member);
  return included && !p.memberLevel.excludes.includes(member);
}

function rowFilter(
  owner: string,
  applying: AccessPolicy[],
  ctx: SecurityContext,
): QueryFilter | false | null {
  if (applying.length === 0) return false;
  if (applying.some((p) => p.rowLevel === null || p.rowLevel.allowAll)) return null;
  const perPolicy: (QueryFilter | false)[] = applying.map((p) => {
    const items = p.rowLevel!.filters.map((f) => toQueryFilter(owner, f, ctx));
    if (items.includes(false)) return false;
    return { and: items as QueryFilter[] };
  });
  const allowed = perPolicy.filter((f) => f !== false);
  if (allowed.length === 0) return false;
  return allowed.length === 1 ? allowed[0] : { or: allowed };
}

function toQueryFilter(owner: string, f: PolicyFilter, ctx: SecurityContext): QueryFilter | false {
  if ('and' in f || 'or' in f) {
    const list = 'and' in f ? f.and : f.or;
    const items = list.map((x) => toQueryFilter(owner, x, ctx));
    if ('and' in f) return items.includes(false) ? false : { and: items as QueryFilter[] };
    const ok = items.filter((x) => x !== false);
    return ok.length === 0 ? false : { or: ok };
  }
  const values: unknown[] = [];
  for (const v of f.values) {
    const resolved = interpolate(v, ctx);
    if (resolved === null) return false;
    values.push(...resolved);
  }
  return {
    member: `${owner}.${f.member}`,
    operator: f.operator,
    values: values.map((v) => (v === null ? null : String(v))),
  };
}
