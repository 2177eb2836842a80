import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { EmbedUserRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { keysetCursor } from '../../pagination/keyset.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { reservedGroupPrefix } from './group-names.ts';
import type { EmbedGroupsRepository, EmbedGroupWithCount } from './groups-repository.ts';
import type { EmbedIdentities } from './identities.ts';
import type { CreateEmbedGroupBody, EmbedGroupMembersBody, UpdateEmbedGroupBody } from './schemas.ts';
import type { EmbedTenantsService } from './service.ts';
import type { EmbedUsersRepository } from './users-repository.ts';
import { embedGroupView, embedUserView } from './views.ts';

export interface EmbedGroupsDeps {
  db: Db;
  tenants: EmbedTenantsService;
  groups: EmbedGroupsRepository;
  users: Pick<EmbedUsersRepository, 'byIds' | 'byExternalIds'>;
  /** Members provisioned by name are created there, the one writer of embed users. */
  identities: Pick<EmbedIdentities, 'upsertUser'>;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

type Members = Static<typeof EmbedGroupMembersBody>['members'];

/**
 * An embed tenant's own groups (spec 4.3 rule 2: `tenantGroups`, shown only inside that tenant)
 * and their members. A name is immutable once created: it is part of the security context
 * (`system:tenant:{tenant}:group:{name}`), and renaming would detach the access policies on it.
 */
export class EmbedGroupsService {
  constructor(private readonly deps: EmbedGroupsDeps) {}

  async list(principal: Principal, tenantName: string, query: PageQuery) {
    // A creator-mode embed token sees its own tenant's groups and no other tenant's (spec 4.3 rule 2).
    if (principal.embed && principal.embed.embedTenantName !== tenantName)
      throw new NotFoundError(`Embed tenant ${tenantName}`, 'embed_tenant_not_found');
    const tenant = await this.deps.tenants.require(principal.tenantId, tenantName);
    const window = pageWindow(query, 1);
    return toPage(await this.deps.groups.list(tenant.id, window), window, keysetCursor, embedGroupView);
  }

  async get(principal: Principal, tenantName: string, id: number) {
    return embedGroupView(await this.require(principal, tenantName, id));
  }

  async create(principal: Principal, tenantName: string, body: Static<typeof CreateEmbedGroupBody>) {
    const tenant = await this.deps.tenants.require(principal.tenantId, tenantName);
    if (body.name.startsWith(reservedGroupPrefix))
      throw new ValidationError(
        'Reserved group name',
        [{ field: 'body/name', message: `must not start with "${reservedGroupPrefix}"` }],
        'embed_group_name_unavailable',
      );
    const row = await this.deps.db.transaction().execute(async (trx) => {
      const inserted = await this.deps.groups.insert(tenant.id, body.name, body.description ?? null, trx);
      if (!inserted)
        throw new ValidationError(
          'Group name taken',
          [{ field: 'body/name', message: `a group named "${body.name}" exists in this embed tenant` }],
          'embed_group_name_unavailable',
        );
      await this.deps.audit.record(trx, principal, {
        action: 'embed_group.create',
        targetType: 'embed_group',
        targetId: inserted.id,
        after: groupAudit(tenant.name, inserted),
      });
      return inserted;
    });
    return embedGroupView({ ...row, user_count: 0 });
  }

  async update(
    principal: Principal,
    tenantName: string,
    id: number,
    body: Static<typeof UpdateEmbedGroupBody>,
  ) {
    const group = await this.require(principal, tenantName, id);
    if (body.description !== undefined) {
      const description = body.description === '' ? null : body.description;
      await this.deps.db.transaction().execute(async (trx) => {
        await this.deps.groups.updateDescription(group.id, description, trx);
        await this.deps.audit.record(trx, principal, {
          action: 'embed_group.update',
          targetType: 'embed_group',
          targetId: group.id,
          before: groupAudit(tenantName, group),
          after: groupAudit(tenantName, { ...group, description }),
        });
      });
    }
    return this.get(principal, tenantName, id);
  }

  /** The reference: 400 while the group has members (remove them first), 404 when it is not the tenant's. */
  async delete(principal: Principal, tenantName: string, id: number): Promise<void> {
    const group = await this.require(principal, tenantName, id);
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await this.deps.groups.deleteIfEmpty(group.id, trx)))
        throw new ValidationError(
          `Group ${id} still has members`,
          [{ field: 'params/id', message: 'names a group with members; remove them first' }],
          'embed_group_not_empty',
        );
      await this.deps.audit.record(trx, principal, {
        action: 'embed_group.delete',
        targetType: 'embed_group',
        targetId: group.id,
        before: groupAudit(tenantName, group),
      });
    });
  }

  async members(principal: Principal, tenantName: string, id: number, query: PageQuery) {
    const group = await this.require(principal, tenantName, id);
    const window = pageWindow(query, 2);
    return toPage(await this.deps.groups.members(group.id, window), window, keysetCursor, embedUserView);
  }

  /**
   * Adds members, never replaces them. An unknown `externalId` is provisioned as a permanent user
   * of the tenant (so groups can be filled before a first session); an unknown `embedUserId` is 404.
   */
  async addMembers(principal: Principal, tenantName: string, id: number, members: Members) {
    const group = await this.require(principal, tenantName, id);
    const embedTenantId = group.embed_tenant_id;
    const users = await this.resolve(principal.tenantId, embedTenantId, members, true);
    const added = new Set(
      await this.deps.db.transaction().execute(async (trx) => {
        const ids = await this.deps.groups.addMembers(
          group.id,
          users.map((u) => u.id),
          trx,
        );
        if (ids.length > 0)
          await this.deps.audit.record(trx, principal, {
            action: 'embed_group.add_members',
            targetType: 'embed_group',
            targetId: group.id,
            after: { ...groupAudit(tenantName, group), added: memberNames(users, ids) },
          });
        return ids;
      }),
    );
    return {
      addedMembers: users.filter((u) => added.has(u.id)).map(embedUserView),
      unchangedMembers: users.filter((u) => !added.has(u.id)).map(embedUserView),
    };
  }

  /** Only this membership goes; unknown users are never provisioned here. Idempotent. */
  async removeMembers(principal: Principal, tenantName: string, id: number, members: Members): Promise<void> {
    const group = await this.require(principal, tenantName, id);
    const users = await this.resolve(principal.tenantId, group.embed_tenant_id, members, false);
    if (users.length === 0) return;
    await this.deps.db.transaction().execute(async (trx) => {
      const ids = users.map((u) => u.id);
      await this.deps.groups.removeMembers(group.id, ids, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'embed_group.remove_members',
        targetType: 'embed_group',
        targetId: group.id,
        before: { ...groupAudit(tenantName, group), removed: memberNames(users, ids) },
      });
    });
  }

  private async require(principal: Principal, tenantName: string, id: number): Promise<EmbedGroupWithCount> {
    const tenant = await this.deps.tenants.require(principal.tenantId, tenantName);
    const group = await this.deps.groups.find(tenant.id, id);
    if (!group) throw new NotFoundError(`Group ${id} of embed tenant ${tenantName}`, 'embed_group_not_found');
    return group;
  }

  /** Each member by exactly one of `externalId` or `embedUserId` (400 naming the entry otherwise). */
  private async resolve(
    tenantId: number,
    embedTenantId: number,
    members: Members,
    provision: boolean,
  ): Promise<EmbedUserRow[]> {
    const problems = members.flatMap((m, i) =>
      (m.externalId == null) === (m.embedUserId == null)
        ? [{ field: `body/members/${i}`, message: 'needs exactly one of externalId or embedUserId' }]
        : [],
    );
    if (problems.length > 0) throw new ValidationError('Members are not identified', problems);
    const ids = [...new Set(members.flatMap((m) => (m.embedUserId == null ? [] : [m.embedUserId])))];
    const externalIds = [
      ...new Set(members.flatMap((m) => (m.externalId == null ? [] : [m.externalId.trim().toLowerCase()]))),
    ];
    const byId = await this.deps.users.byIds(tenantId, embedTenantId, ids);
    const missing = ids.filter((id) => !byId.some((u) => u.id === id));
    if (missing.length > 0)
      throw new NotFoundError(`Embed users ${missing.join(', ')} of this tenant`, 'embed_user_not_found');
    let byExternal = await this.deps.users.byExternalIds(tenantId, embedTenantId, externalIds);
    const unknown = externalIds.filter((x) => !byExternal.some((u) => u.external_id === x));
    if (provision && unknown.length > 0) {
      const created = await this.deps.db.transaction().execute(async (trx) => {
        const rows = [];
        for (const externalId of unknown)
          rows.push(
            await this.deps.identities.upsertUser(
              { tenantId, embedTenantId, externalId, lifetime: { kind: 'permanent' }, signsIn: false },
              trx,
            ),
          );
        return rows;
      });
      byExternal = [...byExternal, ...created];
    }
    const all = [...byId, ...byExternal];
    return [...new Map(all.map((u) => [u.id, u])).values()];
  }
}

/** What an audit entry says of an embed group. */
function groupAudit(tenantName: string, group: { name: string; description: string | null }) {
  return { embedTenant: tenantName, name: group.name, description: group.description };
}

/** The external ids of the members a change touched. */
function memberNames(users: readonly EmbedUserRow[], ids: readonly number[]): string[] {
  const touched = new Set(ids);
  return users.filter((u) => touched.has(u.id)).map((u) => u.external_id);
}
