import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { Db } from '../../db/database.ts';
import type { AccountRole, UserRow } from '../../db/schema.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { ApiKeysRepository } from '../api-keys/repository.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { SignInRepository } from '../sign-in/repository.ts';
import type { UsersRepository } from './repository.ts';
import type { CreateUserBody, UpdateUserBody, User } from './schemas.ts';

export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly repository: UsersRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly bus: InvalidationBus,
    private readonly sessions: SignInRepository,
    /** Issue 22 item 5: each change is recorded in its own transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  async list(principal: Principal, query: PageQuery) {
    const window = pageWindow(query, 1);
    return toPage(await this.repository.list(principal.tenantId, window), window, (r) => [r.id], userView);
  }

  async get(principal: Principal, id: number) {
    const row = await this.repository.find(principal.tenantId, id);
    if (!row) throw new NotFoundError(`User ${id}`, 'user_not_found');
    return userView(row);
  }

  async create(principal: Principal, input: Static<typeof CreateUserBody>) {
    const role: AccountRole = input.role ?? (input.isAdmin ? 'admin' : 'viewer');
    if (
      input.role &&
      input.isAdmin !== undefined &&
      input.isAdmin !== null &&
      input.isAdmin !== (input.role === 'admin')
    ) {
      throw new ValidationError('isAdmin contradicts role', [
        { field: 'body/isAdmin', message: 'contradicts role' },
      ]);
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        const created = userView(await this.repository.insert(principal.tenantId, { ...input, role }, trx));
        await this.audit.record(trx, principal, {
          action: 'user.create',
          targetType: 'user',
          targetId: created.id,
          after: created,
        });
        return created;
      });
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new ConflictError('A user with this email or username already exists', 'user_exists');
      }
      throw error;
    }
  }

  /** Deactivating a user revokes every credential they hold (API keys, browser sessions), in the same transaction. */
  async update(principal: Principal, id: number, input: Static<typeof UpdateUserBody>) {
    const role: AccountRole | undefined = input.role ?? (input.isAdmin === true ? 'admin' : undefined);
    const updated = await this.db.transaction().execute(async (trx) => {
      const current = await this.repository.find(principal.tenantId, id, trx);
      if (!current) throw new NotFoundError(`User ${id}`, 'user_not_found');
      const demoted = input.isAdmin === false && current.role === 'admin' ? 'developer' : undefined;
      const row = await this.repository.update(
        principal.tenantId,
        id,
        { ...input, role: role ?? demoted, isDeactivated: input.isDeactivated ?? undefined },
        trx,
      );
      if (!row) throw new NotFoundError(`User ${id}`, 'user_not_found');
      if (current.role === 'admin' && (row.role !== 'admin' || row.is_deactivated)) {
        if ((await this.repository.countActiveAdmins(principal.tenantId, trx)) === 0) {
          throw new ConflictError('The account must keep at least one active admin', 'last_admin');
        }
      }
      if (row.is_deactivated) {
        await this.apiKeys.revokeAllOfUser(id, trx);
        await this.sessions.revokeAllOfUser(id, trx);
      }
      const after = userView(row);
      await this.audit.record(trx, principal, {
        action: 'user.update',
        targetType: 'user',
        targetId: id,
        before: userView(current),
        after,
      });
      return after;
    });
    // Role and activation are read by authentication: drop cached credentials after the commit.
    this.bus.publish('credentials');
    return updated;
  }

  async delete(principal: Principal, id: number) {
    if (id === principal.userId)
      throw new ConflictError('You cannot delete your own user', 'cannot_delete_self');
    await this.db.transaction().execute(async (trx) => {
      const current = await this.repository.find(principal.tenantId, id, trx);
      if (!current || !(await this.repository.delete(principal.tenantId, id, trx)))
        throw new NotFoundError(`User ${id}`, 'user_not_found');
      await this.audit.record(trx, principal, {
        action: 'user.delete',
        targetType: 'user',
        targetId: id,
        before: userView(current),
      });
    });
    this.bus.publish('credentials');
    return { success: true };
  }
}

export function userView(row: UserRow): Static<typeof User> {
  return {
    id: row.id,
    email: row.email,
    username: row.username,
    firstName: row.first_name,
    lastName: row.last_name,
    picture: row.picture,
    externalId: row.external_id,
    isAdmin: row.role === 'admin',
    role: row.role,
    isDeactivated: row.is_deactivated,
    notifications: {},
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
