import type { Db } from '../../db/database.ts';
import type { EmbedGroupRow, EmbedTenantRow, EmbedUserRow } from '../../db/schema.ts';
import type { EmbedGroupsRepository } from './groups-repository.ts';
import type { EmbedIdentity, EmbedTenantWithCount } from './records.ts';
import type { EmbedTenantsRepository } from './tenants-repository.ts';
import type { EmbedUsersRepository } from './users-repository.ts';

export interface EmbedIdentitiesDeps {
  tenants: Pick<EmbedTenantsRepository, 'find' | 'upsert'>;
  groups: Pick<
    EmbedGroupsRepository,
    'globalNamed' | 'named' | 'upsert' | 'setGlobalGroups' | 'setTenantGroups'
  >;
  users: Pick<EmbedUsersRepository, 'upsert' | 'deleteExpired'>;
}

/**
 * The only writer of embed users (issue 22 item 0): embed sessions, provisioning, group members,
 * chat sessions and notification recipients all create or refresh an embed user (and the embed
 * tenant it belongs to) here, so that the lifetime rules of spec 3 live in one place. Every
 * method takes the caller's transaction.
 */
export class EmbedIdentities {
  constructor(private readonly deps: EmbedIdentitiesDeps) {}

  /** Creates or refreshes the embed user `identity` names (spec 3 lifetimes: `identity.lifetime`). */
  upsertUser(identity: EmbedIdentity, db?: Db): Promise<EmbedUserRow> {
    return this.deps.users.upsert(identity, db);
  }

  /** Removes up to `limit` embed users whose lifetime has ended; their ids. */
  deleteExpiredUsers(limit: number): Promise<number[]> {
    return this.deps.users.deleteExpired(limit);
  }

  findTenant(tenantId: number, name: string, db?: Db): Promise<EmbedTenantWithCount | undefined> {
    return this.deps.tenants.find(tenantId, name, db);
  }

  /** The embed tenant `name`, created on first use (a display name given replaces the stored one). */
  upsertTenant(tenantId: number, name: string, displayName: string | null, db?: Db): Promise<EmbedTenantRow> {
    return this.deps.tenants.upsert(tenantId, name, displayName, db);
  }

  globalGroupsNamed(tenantId: number, names: string[], db?: Db): Promise<{ id: number; name: string }[]> {
    return this.deps.groups.globalNamed(tenantId, names, db);
  }

  tenantGroupsNamed(embedTenantId: number, names: string[], db?: Db): Promise<EmbedGroupRow[]> {
    return this.deps.groups.named(embedTenantId, names, db);
  }

  /** Creates the embed tenant's groups that do not exist yet (spec 4.3 `tenantGroupDefinitions`). */
  defineTenantGroups(
    embedTenantId: number,
    groups: { name: string; description?: string | null }[],
    db?: Db,
  ): Promise<void> {
    return this.deps.groups.upsert(embedTenantId, groups, db);
  }

  /** Replaces the user's global-group lane. */
  setGlobalGroups(userId: number, groupIds: number[], db?: Db): Promise<void> {
    return this.deps.groups.setGlobalGroups(userId, groupIds, db);
  }

  /** Replaces the user's embed-tenant-group lane. */
  setTenantGroups(userId: number, groupIds: number[], db?: Db): Promise<void> {
    return this.deps.groups.setTenantGroups(userId, groupIds, db);
  }
}
