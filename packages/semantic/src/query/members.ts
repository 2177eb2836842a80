import { UserError } from '../errors.ts';
import type { CubeMember, Model } from '../model/types.ts';
import type { AccessResolution } from '../security/access.ts';
import type { QueryMember } from './types.ts';

/** Finds `owner.member` on a cube or view; null when it does not exist. */
export function findMember(model: Model, path: string): QueryMember | null {
  const dot = path.indexOf('.');
  if (dot < 0) return null;
  const owner = path.slice(0, dot);
  const name = path.slice(dot + 1);
  const cube = model.cubes.get(owner);
  if (cube) {
    const member: CubeMember | undefined =
      cube.measures.get(name) ?? cube.dimensions.get(name) ?? cube.segments.get(name);
    return member ? { path, owner, member, view: null, viewMember: null } : null;
  }
  const view = model.views.get(owner);
  const vm = view?.members.get(name);
  return view && vm ? { path, owner, member: vm.target, view, viewMember: vm } : null;
}

/**
 * Resolves a member named by a query, enforcing visibility: a member that is not public, or
 * hidden from this security context by a member-level policy, is refused with Cube's message,
 * which does not tell the two cases apart.
 */
export function resolveMember(
  model: Model,
  access: AccessResolution,
  path: unknown,
  expected: 'measure' | 'dimension' | 'segment' | 'any',
  context: string,
): QueryMember {
  if (typeof path !== 'string') throw new UserError(`Invalid member in ${context}: ${JSON.stringify(path)}`);
  const found = findMember(model, path);
  if (!found) throw new UserError(`Unknown member: ${path}`);
  const visible = found.viewMember ? found.viewMember.public && found.view!.public : found.member.public;
  const ownerPublic = found.view ? found.view.public : model.cubes.get(found.owner)!.public;
  if (!visible || !ownerPublic || access.hiddenMembers.has(path)) {
    throw new UserError(`You requested hidden member: '${path}'`);
  }
  if (expected !== 'any' && found.member.kind !== expected) {
    throw new UserError(
      `${path} is a ${found.member.kind}, not a ${expected}, and cannot be used in ${context}`,
    );
  }
  return found;
}
