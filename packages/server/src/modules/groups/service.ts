import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { Db } from '../../db/database.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { UserLookup } from './ports.ts';
import type { GroupsRepository, GroupWithCount } from './repository.ts';
import type { CreateGroupBody, Group, UpdateGroupBody } from './schemas.ts';

function isUniqueViolation(error: unknown) {
  return (error as { code?: string }).code === '23505';
}

export class GroupsService {
  constructor(
    private readonly repository: GroupsRepository,
    private readonly users: UserLookup,
    /** Issue 22 item 5: each change is recorded in its own transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
    /**
     * A member holds the group's roles (modules/roles): a membership change changes what their
     * credentials may do, so this replica's credential caches drop it at once (the store's trigger,
     * migration 0027, tells the other replicas).
     */
    private readonly bus?: Pick<InvalidationBus, 'publish'>,
  ) {}

  async list(principal: Principal, query: PageQuery) {
    const window = pageWindow(query, 1);
    return toPage(await this.repository.list(principal.tenantId, window), window, (r) => [r.id], groupView);
  }

  async get(principal: Principal, id: number) {
    return groupView(await this.require(principal.tenantId, id));
  }

  async create(principal: Principal, input: Static<typeof CreateGroupBody>) {
    try {
      return await this.repository.transaction(async (trx) => {
        const created = groupView(await this.repository.insert(principal.tenantId, input, trx));
        await this.record(trx, principal, 'group.create', created.id, null, created);
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError(`A group named "${input.name}" already exists`, 'group_exists');
      throw error;
    }
  }

  async update(principal: Principal, id: number, input: Static<typeof UpdateGroupBody>) {
    try {
      return await this.repository.transaction(async (trx) => {
        const before = await this.require(principal.tenantId, id, trx);
        await this.repository.update(principal.tenantId, id, input, trx);
        const after = groupView(await this.require(principal.tenantId, id, trx));
        await this.record(trx, principal, 'group.update', id, groupView(before), after);
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError(`A group named "${input.name}" already exists`, 'group_exists');
      throw error;
    }
  }

  async delete(principal: Principal, id: number) {
    await this.repository.transaction(async (trx) => {
      const before = await this.require(principal.tenantId, id, trx);
      await this.repository.delete(principal.tenantId, id, trx);
      await this.record(trx, principal, 'group.delete', id, groupView(before), null);
    });
    this.bus?.publish('credentials');
    return { success: true };
  }

  async members(principal: Principal, id: number) {
    await this.require(principal.tenantId, id);
    return { items: (await this.repository.memberIds(id)).map((m) => ({ userId: m.user_id })) };
  }

  async addMember(principal: Principal, id: number, userId: number) {
    await this.require(principal.tenantId, id);
    if (!(await this.users.find(principal.tenantId, userId))) {
      throw new ValidationError('Unknown user', [
        { field: 'body/userId', message: 'is not a user of this account' },
      ]);
    }
    await this.repository.transaction(async (trx) => {
      await this.repository.addMember(id, userId, trx);
      await this.record(trx, principal, 'group.add_member', id, null, { userId });
    });
    this.bus?.publish('credentials');
    return this.members(principal, id);
  }

  async removeMember(principal: Principal, id: number, userId: number) {
    await this.require(principal.tenantId, id);
    await this.repository.transaction(async (trx) => {
      if (!(await this.repository.removeMember(id, userId, trx)))
        throw new NotFoundError(`Member ${userId} of group ${id}`, 'member_not_found');
      await this.record(trx, principal, 'group.remove_member', id, { userId }, null);
    });
    this.bus?.publish('credentials');
    return this.members(principal, id);
  }

  private record(trx: Db, principal: Principal, action: string, id: number, before: unknown, after: unknown) {
    return this.audit.record(trx, principal, { action, targetType: 'group', targetId: id, before, after });
  }

  private async require(tenantId: number, id: number, db?: Db): Promise<GroupWithCount> {
    const row = await this.repository.find(tenantId, id, db);
    if (!row) throw new NotFoundError(`Group ${id}`, 'group_not_found');
    return row;
  }
}

export function groupView(row: GroupWithCount): Static<typeof Group> {
  return { id: row.id, name: row.name, description: row.description, userCount: row.user_count };
}
