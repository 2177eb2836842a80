import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Policy } from '../../auth/roles.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { RoleRow } from '../../db/schema.ts';
import {
  ConflictError,
  type FieldProblem,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { UserLookup } from './ports.ts';
import type { RolesRepository } from './repository.ts';
import type { Role, RoleCreateBody, RoleUpdateBody } from './schemas.ts';

/** Names a custom role may not take (the reference's built-in names, and ours). */
const reservedNames = new Set(
  [
    'Admin',
    'Developer',
    'Viewer',
    'AIBIDeveloper',
    'D3User',
    'AIBIUser',
    'AIBIViewer',
    'Guest',
    'EmbedUser',
  ].map((n) => n.toLowerCase()),
);

/**
 * The reference's Roles group (issue 22 item 2): custom roles with policies, assigned to users and
 * to global groups (whose members hold them).
 * What a role grants is enforced by authentication (auth/roles.ts) through each route's access
 * declaration; every change here is announced on the credentials topic, which the store also
 * announces to every replica (migration 0020's triggers).
 */
export class RolesService {
  constructor(
    private readonly repository: RolesRepository,
    private readonly users: UserLookup,
    private readonly bus: InvalidationBus,
    /** Issue 22 item 5: role changes and assignments are recorded in their transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  async list(principal: Principal, query: PageQuery) {
    const window = pageWindow(query, 1);
    return toPage(await this.repository.list(principal.tenantId, window), window, (r) => [r.id], roleView);
  }

  async get(principal: Principal, id: number) {
    return roleView(await this.found(principal, id));
  }

  async create(principal: Principal, input: Static<typeof RoleCreateBody>) {
    checkName(input.name);
    checkPolicies(input.policies);
    try {
      const row = await this.repository.transaction(async (roles, trx) => {
        const created = await roles.insert(principal.tenantId, input);
        await this.audit.record(trx, principal, {
          action: 'role.create',
          targetType: 'role',
          targetId: created.id,
          after: roleView(created),
        });
        return created;
      });
      return roleView(row);
    } catch (error) {
      throw conflictOr(error);
    }
  }

  async update(principal: Principal, id: number, input: Static<typeof RoleUpdateBody>) {
    const before = await this.custom(principal, id);
    if (input.name !== undefined) checkName(input.name);
    if (input.policies !== undefined) checkPolicies(input.policies);
    let row: RoleRow | undefined;
    try {
      row = await this.repository.transaction(async (roles, trx) => {
        const updated = await roles.update(principal.tenantId, id, input);
        if (updated)
          await this.audit.record(trx, principal, {
            action: 'role.update',
            targetType: 'role',
            targetId: id,
            before: roleView(before),
            after: roleView(updated),
          });
        return updated;
      });
    } catch (error) {
      throw conflictOr(error);
    }
    if (!row) throw new NotFoundError(`Role ${id}`, 'role_not_found');
    this.bus.publish('credentials');
    return roleView(row);
  }

  async delete(principal: Principal, id: number) {
    const before = await this.custom(principal, id);
    await this.repository.transaction(async (roles, trx) => {
      if (!(await roles.delete(principal.tenantId, id)))
        throw new NotFoundError(`Role ${id}`, 'role_not_found');
      await this.audit.record(trx, principal, {
        action: 'role.delete',
        targetType: 'role',
        targetId: id,
        before: roleView(before),
      });
    });
    this.bus.publish('credentials');
  }

  /** Idempotent; a built-in role but Admin may be assigned too (no call here makes an admin). */
  async assign(principal: Principal, roleId: number, userId: number) {
    await this.user(principal, userId);
    const role = await this.repository.find(principal.tenantId, roleId);
    if (!role || role.built_in === 'admin') throw new NotFoundError(`Role ${roleId}`, 'role_not_found');
    await this.recordAssignment(principal, userId, role, (roles) => roles.assign(userId, roleId));
    this.bus.publish('credentials');
  }

  /** Idempotent: removing a role the user does not hold changes nothing. */
  async unassign(principal: Principal, roleId: number, userId: number) {
    await this.user(principal, userId);
    const role = await this.repository.find(principal.tenantId, roleId);
    if (role) await this.recordAssignment(principal, userId, role, (roles) => roles.unassign(userId, roleId));
    this.bus.publish('credentials');
  }

  /**
   * Assigns or unassigns in one transaction with its entry: the user's roles before and after.
   * An assignment that changes nothing (idempotent calls) leaves no entry.
   */
  private async recordAssignment(
    principal: Principal,
    userId: number,
    role: RoleRow,
    change: (roles: RolesRepository) => Promise<boolean>,
  ) {
    await this.repository.transaction(async (roles, trx) => {
      const held = async () => ((await roles.ofUsers([userId])).get(userId) ?? []).map((r) => r.name);
      const before = await held();
      const assigning = !before.includes(role.name);
      if (!(await change(roles))) return;
      await this.audit.record(trx, principal, {
        action: assigning ? 'user.assign_role' : 'user.unassign_role',
        targetType: 'user',
        targetId: userId,
        before: { roles: before },
        after: { roles: await held(), role: { id: role.id, name: role.name } },
      });
    });
  }

  /**
   * A role for every member of a global group (no reference operation: the reference deletes a
   * role's group assignments with it but names no call that makes one). Idempotent; as for users,
   * any role but Admin.
   */
  async assignToGroup(principal: Principal, roleId: number, groupId: number) {
    await this.group(principal, groupId);
    const role = await this.repository.find(principal.tenantId, roleId);
    if (!role || role.built_in === 'admin') throw new NotFoundError(`Role ${roleId}`, 'role_not_found');
    await this.recordGroupAssignment(principal, groupId, role, 'group.assign_role', (roles) =>
      roles.assignToGroup(groupId, roleId),
    );
    this.bus.publish('credentials');
  }

  /** Idempotent: removing a role the group does not hold changes nothing; 404 for an unknown group. */
  async unassignFromGroup(principal: Principal, roleId: number, groupId: number) {
    await this.group(principal, groupId);
    const role = await this.repository.find(principal.tenantId, roleId);
    if (role)
      await this.recordGroupAssignment(principal, groupId, role, 'group.unassign_role', (roles) =>
        roles.unassignFromGroup(groupId, roleId),
      );
    this.bus.publish('credentials');
  }

  /** As for users (issue 22 item 5): one entry per change, in its transaction; none for a repeat. */
  private async recordGroupAssignment(
    principal: Principal,
    groupId: number,
    role: RoleRow,
    action: 'group.assign_role' | 'group.unassign_role',
    change: (roles: RolesRepository) => Promise<boolean>,
  ) {
    await this.repository.transaction(async (roles, trx) => {
      if (!(await change(roles))) return;
      await this.audit.record(trx, principal, {
        action,
        targetType: 'group',
        targetId: groupId,
        after: { role: { id: role.id, name: role.name } },
      });
    });
  }

  private async group(principal: Principal, groupId: number) {
    if (!(await this.repository.groupExists(principal.tenantId, groupId)))
      throw new NotFoundError(`Group ${groupId}`, 'group_not_found');
  }

  private async found(principal: Principal, id: number): Promise<RoleRow> {
    const row = await this.repository.find(principal.tenantId, id);
    if (!row) throw new NotFoundError(`Role ${id}`, 'role_not_found');
    return row;
  }

  private async custom(principal: Principal, id: number): Promise<RoleRow> {
    const row = await this.found(principal, id);
    if (row.built_in !== null)
      throw new ForbiddenError(`${row.name} is a built-in role and cannot be changed`, 'built_in_role');
    return row;
  }

  private async user(principal: Principal, userId: number) {
    if (!(await this.users.find(principal.tenantId, userId)))
      throw new NotFoundError(`User ${userId}`, 'user_not_found');
  }
}

function checkName(name: string) {
  if (reservedNames.has(name.toLowerCase()))
    throw new ValidationError(
      `${name} is the name of a built-in role`,
      [{ field: 'body/name', message: 'is the name of a built-in role' }],
      'role_name_reserved',
    );
}

/** A `Deployment` policy names deployments by id (shape only: a deleted one simply grants nothing). */
function checkPolicies(policies: Policy[]) {
  const problems: FieldProblem[] = [];
  policies.forEach((p, i) => {
    if (p.resourceType !== 'Deployment') return;
    p.resources.forEach((r, j) => {
      if (r !== 'All' && !/^[1-9]\d{0,9}$/.test(r))
        problems.push({
          field: `body/policies/${i}/resources/${j}`,
          message: 'is not a deployment id nor "All"',
        });
    });
  });
  if (problems.length > 0)
    throw new ValidationError('A Deployment policy names deployments by id', problems, 'invalid_policy');
}

function conflictOr(error: unknown): unknown {
  if ((error as { code?: string }).code === '23505')
    return new ConflictError('A role with that name already exists', 'role_exists');
  return error;
}

export function roleView(row: RoleRow): Static<typeof Role> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    policies: row.policies as Policy[],
    builtIn: row.built_in !== null,
  };
}
