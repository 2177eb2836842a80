import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { Db } from '../../db/database.ts';
import type { AccountRole, UserRow } from '../../db/schema.ts';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { hashPassword } from '../sign-in/passwords.ts';
import type { KeyRevoker, RoleHoldings, SessionRevoker } from './ports.ts';
import type { UsersRepository } from './repository.ts';
import type {
  BulkUserActionInput,
  BulkUserActionPayload,
  CreateUserBody,
  MyProfileBody,
  UpdateUserBody,
  User,
  UserSettingsInput,
} from './schemas.ts';

type Settings = Record<string, unknown>;
type RoleRef = { id: number; name: string };

/**
 * The reference's Users Admin and Users groups (issue 22 item 1). Deactivating or deleting a user
 * revokes every credential they hold (API keys, browser sessions) in the same transaction; the
 * store announces the change to every replica's credential cache (migration 0003), so it bites
 * on the next request everywhere. A deleted user's content passes to the admin who deleted them.
 */
export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly repository: UsersRepository,
    private readonly apiKeys: KeyRevoker,
    private readonly bus: InvalidationBus,
    private readonly sessions: SessionRevoker,
    private readonly roles: RoleHoldings,
    /** Issue 22 item 5: each change is recorded in its own transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  async list(principal: Principal, query: PageQuery) {
    const window = pageWindow(query, 1);
    const rows = await this.repository.list(principal.tenantId, window);
    const roles = await this.roles.ofUsers(rows.map((r) => r.id));
    return toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => userView(r, roles.get(r.id) ?? []),
    );
  }

  async get(principal: Principal, id: number) {
    const row = await this.repository.find(principal.tenantId, id);
    if (!row) throw new NotFoundError(`User ${id}`, 'user_not_found');
    return this.view(row);
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
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await this.repository.insert(
          principal.tenantId,
          { ...input, role, passwordHash, settings: mergeSettings({}, input.settings ?? {}) },
          trx,
        );
        const created = userView(row, []);
        await this.audit.record(trx, principal, {
          action: 'user.create',
          targetType: 'user',
          targetId: created.id,
          after: created,
        });
        return created;
      });
    } catch (error) {
      throw conflictOr(error);
    }
  }

  /**
   * Deactivating a user revokes every credential they hold (API keys, browser sessions), in the
   * same transaction; a new password ends their sessions (but the caller's own). The account
   * keeps one active admin (403 `last_admin`); nobody deactivates themselves (403).
   */
  async update(principal: Principal, id: number, input: Static<typeof UpdateUserBody>) {
    if (input.email !== undefined) checkDeliverable(input.email);
    if (input.isDeactivated === true && id === principal.userId)
      throw new ForbiddenError('You cannot deactivate your own user', 'cannot_deactivate_self');
    const role: AccountRole | undefined = input.role ?? (input.isAdmin === true ? 'admin' : undefined);
    const passwordHash = input.password ? await hashPassword(input.password) : undefined;
    const updated = await this.db
      .transaction()
      .execute(async (trx) => {
        const current = await this.repository.find(principal.tenantId, id, trx);
        if (!current) throw new NotFoundError(`User ${id}`, 'user_not_found');
        const demoted = input.isAdmin === false && current.role === 'admin' ? 'developer' : undefined;
        const row = await this.repository.update(
          principal.tenantId,
          id,
          {
            firstName: input.firstName,
            lastName: input.lastName,
            picture: input.picture,
            email: input.email,
            passwordHash,
            settings:
              input.settings === undefined
                ? undefined
                : input.settings === null
                  ? {}
                  : mergeSettings(current.settings, input.settings),
            role: role ?? demoted,
            isDeactivated: input.isDeactivated ?? undefined,
          },
          trx,
        );
        if (!row) throw new NotFoundError(`User ${id}`, 'user_not_found');
        if (current.role === 'admin' && (row.role !== 'admin' || row.is_deactivated))
          await this.keepAnAdmin(principal.tenantId, trx);
        if (row.is_deactivated) {
          await this.apiKeys.revokeAllOfUser(id, trx);
          await this.sessions.revokeAllOfUser(id, trx);
        } else if (passwordHash !== undefined) {
          const keep =
            principal.credentialKind === 'session' && principal.userId === id
              ? principal.credentialId
              : undefined;
          await this.sessions.revokeAllOfUser(id, trx, keep);
        }
        await this.audit.record(trx, principal, {
          action: 'user.update',
          targetType: 'user',
          targetId: id,
          before: userView(current),
          after: userView(row),
        });
        return row;
      })
      .catch((error) => {
        throw conflictOr(error);
      });
    // Role and activation are read by authentication: drop cached credentials after the commit.
    this.bus.publish('credentials');
    return this.view(updated);
  }

  /** Deletes a user; their content passes to the admin who deletes them (never lost). */
  async delete(principal: Principal, id: number) {
    if (id === principal.userId)
      throw new ValidationError('You cannot delete your own user', [], 'cannot_delete_self');
    await this.db.transaction().execute(async (trx) => {
      const current = await this.repository.find(principal.tenantId, id, trx);
      if (!current) throw new NotFoundError(`User ${id}`, 'user_not_found');
      await this.repository.transferContent(id, principal.userId, trx);
      await this.repository.delete(principal.tenantId, id, trx);
      if (current.role === 'admin') await this.keepAnAdmin(principal.tenantId, trx);
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

  /**
   * The reference's bulkUserAction: one action on up to 100 users, each in its own transaction, in
   * the order given (repeated ids once); each failure carries what the single-user call answered.
   */
  async bulk(
    principal: Principal,
    input: Static<typeof BulkUserActionInput>,
  ): Promise<Static<typeof BulkUserActionPayload>> {
    const succeeded: number[] = [];
    const failed: Static<typeof BulkUserActionPayload>['failed'] = [];
    for (const userId of [...new Set(input.userIds)]) {
      try {
        if (input.action === 'DELETE') await this.delete(principal, userId);
        else await this.update(principal, userId, { isDeactivated: input.action === 'DEACTIVATE' });
        succeeded.push(userId);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        failed.push({ userId, error: { status: error.status, message: error.message } });
      }
    }
    return { action: input.action, succeeded, failed };
  }

  /** The reference's updateMySettings: omitted fields stay, `null` clears, `sheets` merges by field. */
  async updateMySettings(principal: Principal, input: Static<typeof UserSettingsInput>) {
    const row = await this.db.transaction().execute(async (trx) => {
      const current = await this.repository.find(principal.tenantId, principal.userId, trx);
      if (!current) throw new NotFoundError(`User ${principal.userId}`, 'user_not_found');
      const settings = mergeSettings(current.settings, input);
      const updated = await this.repository.update(principal.tenantId, principal.userId, { settings }, trx);
      if (updated)
        await this.audit.record(trx, principal, {
          action: 'user.update_settings',
          targetType: 'user',
          targetId: principal.userId,
          before: { settings: current.settings ?? {} },
          after: { settings: updated.settings ?? {} },
        });
      return updated;
    });
    if (!row) throw new NotFoundError(`User ${principal.userId}`, 'user_not_found');
    return this.view(row);
  }

  /** The caller's own names and email (the address their notifications go to). */
  async updateMyProfile(principal: Principal, input: Static<typeof MyProfileBody>) {
    if (input.email !== undefined) checkDeliverable(input.email);
    const row = await this.db
      .transaction()
      .execute(async (trx) => {
        const current = await this.repository.find(principal.tenantId, principal.userId, trx);
        if (!current) return undefined;
        const updated = await this.repository.update(principal.tenantId, principal.userId, input, trx);
        if (updated)
          await this.audit.record(trx, principal, {
            action: 'user.update_profile',
            targetType: 'user',
            targetId: principal.userId,
            before: profileOf(current),
            after: profileOf(updated),
          });
        return updated;
      })
      .catch((error) => {
        throw conflictOr(error);
      });
    if (!row) throw new NotFoundError(`User ${principal.userId}`, 'user_not_found');
    return this.view(row);
  }

  private async keepAnAdmin(tenantId: number, trx: Db) {
    if ((await this.repository.countActiveAdmins(tenantId, trx)) === 0)
      throw new ForbiddenError('The account must keep at least one active admin', 'last_admin');
  }

  private async view(row: UserRow) {
    return userView(row, (await this.roles.ofUsers([row.id])).get(row.id) ?? []);
  }
}

/** Notifications refuse an address whose domain has no dot (`admin@localhost`): so does a user's own. */
function checkDeliverable(email: string) {
  if (!/@[^@\s]+\.[^@\s]+$/.test(email))
    throw new ValidationError('No mail can reach this address', [
      { field: 'body/email', message: 'must be an address mail can reach, such as name@example.com' },
    ]);
}

/** What an entry says of a user's own profile change: the fields the caller may change. */
function profileOf(row: UserRow) {
  return {
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
  };
}

function conflictOr(error: unknown): unknown {
  if ((error as { code?: string }).code === '23505')
    return new ConflictError('A user with this email or username already exists', 'user_exists');
  return error;
}

/**
 * Merges a settings patch: omitted fields stay, `null` removes a field, `sheets` merges field by
 * field (and `null` clears it all). `lastSeenChangelogId` is deprecated and never stored.
 */
export function mergeSettings(current: Settings, patch: Static<typeof UserSettingsInput>): Settings {
  const next: Settings = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'lastSeenChangelogId' || value === undefined) continue;
    if (value === null) delete next[key];
    else if (key === 'sheets') {
      const sheets: Settings = { ...((current.sheets as Settings | undefined) ?? {}) };
      for (const [field, v] of Object.entries(value as Settings)) {
        if (v === null) delete sheets[field];
        else if (v !== undefined) sheets[field] = v;
      }
      next.sheets = sheets;
    } else next[key] = value;
  }
  return next;
}

export function userView(row: UserRow, roles?: RoleRef[]): Static<typeof User> {
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
    settings: row.settings ?? {},
    ...(roles ? { roles } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
