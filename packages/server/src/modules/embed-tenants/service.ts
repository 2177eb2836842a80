import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { DomainError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { keysetCursor } from '../../pagination/keyset.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { uniqueNames, unknownNames } from './group-names.ts';
import type { EmbedGroupsRepository } from './groups-repository.ts';
import type { EmbedIdentities } from './identities.ts';
import type { CreateEmbedTenantBody, ProvisionEmbedUserBody, ProvisionEmbedUsersBody } from './schemas.ts';
import type { EmbedTenantsRepository, EmbedTenantWithCount } from './tenants-repository.ts';
import type { EmbedUsersRepository } from './users-repository.ts';
import { embedTenantView, embedUserView } from './views.ts';

export interface EmbedTenantsDeps {
  db: Db;
  tenants: EmbedTenantsRepository;
  groups: EmbedGroupsRepository;
  users: Pick<EmbedUsersRepository, 'list' | 'byExternalIds'>;
  /** Provisioned users are created there, the one writer of embed users. */
  identities: Pick<EmbedIdentities, 'upsertTenant' | 'upsertUser'>;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

type Provision = Static<typeof ProvisionEmbedUserBody>;

/**
 * Embed tenants and their users (the reference's Embed Tenants group): an embed tenant is
 * created by the first session or provisioning that names it, or here; deleting it takes its
 * users, groups, memberships, sessions and shares along.
 */
export class EmbedTenantsService {
  constructor(private readonly deps: EmbedTenantsDeps) {}

  async list(principal: Principal, query: PageQuery & { search?: string }) {
    const window = pageWindow(query, 1);
    const rows = await this.deps.tenants.list(principal.tenantId, query.search, window);
    return toPage(rows, window, (r) => [r.id], embedTenantView);
  }

  async create(principal: Principal, body: Static<typeof CreateEmbedTenantBody>) {
    await this.deps.db.transaction().execute(async (trx) => {
      const before = await this.deps.tenants.find(principal.tenantId, body.name, trx);
      const row = await this.deps.tenants.upsert(
        principal.tenantId,
        body.name,
        body.displayName ?? null,
        trx,
      );
      const after = tenantAudit(row);
      if (before && JSON.stringify(tenantAudit(before)) === JSON.stringify(after)) return;
      await this.deps.audit.record(trx, principal, {
        action: before ? 'embed_tenant.update' : 'embed_tenant.create',
        targetType: 'embed_tenant',
        targetId: row.id,
        before: before ? tenantAudit(before) : null,
        after,
      });
    });
    return this.get(principal, body.name);
  }

  async get(principal: Principal, name: string) {
    return embedTenantView(await this.require(principal.tenantId, name));
  }

  /** Idempotent; the name is canonical already (the route refuses other casings, as the reference). */
  async delete(principal: Principal, name: string): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const before = await this.deps.tenants.find(principal.tenantId, name, trx);
      if (!before) return;
      await this.deps.tenants.delete(principal.tenantId, name, trx);
      await this.deps.audit.record(trx, principal, {
        action: 'embed_tenant.delete',
        targetType: 'embed_tenant',
        targetId: before.id,
        before: { ...tenantAudit(before), userCount: before.user_count },
      });
    });
  }

  async require(tenantId: number, name: string): Promise<EmbedTenantWithCount> {
    const row = await this.deps.tenants.find(tenantId, name.toLowerCase());
    if (!row) throw new NotFoundError(`Embed tenant ${name}`, 'embed_tenant_not_found');
    return row;
  }

  async users(principal: Principal, name: string, query: PageQuery & { search?: string }) {
    const tenant = await this.require(principal.tenantId, name);
    const window = pageWindow(query, 2);
    const search = query.search?.trim() || undefined;
    const rows = await this.deps.users.list(principal.tenantId, tenant.id, search, window);
    return toPage(rows, window, keysetCursor, embedUserView);
  }

  /**
   * Reference `POST /embed-tenants/{name}/user`: the body is the desired state. Creates the embed
   * tenant on demand and a permanent user; fields given replace stored ones, each group lane given
   * is replaced (`[]` clears it), an omitted one is kept. Groups must exist (400 `unknown_group`).
   */
  async provision(principal: Principal, name: string, body: Provision) {
    const tenantId = principal.tenantId;
    const externalId = body.externalId.trim().toLowerCase();
    if (externalId === '')
      throw new ValidationError('externalId is empty', [
        { field: 'body/externalId', message: 'must not be blank' },
      ]);
    const existing = await this.deps.tenants.find(tenantId, name.toLowerCase());
    const globals = await this.deps.groups.globalNamed(tenantId, uniqueNames(body.groups));
    const locals = existing ? await this.deps.groups.named(existing.id, uniqueNames(body.tenantGroups)) : [];
    const unknown = [
      ...unknownNames(
        body.groups ?? [],
        new Set(globals.map((g) => g.name)),
        'body/groups',
        'a global group',
      ),
      ...unknownNames(
        body.tenantGroups ?? [],
        new Set(locals.map((g) => g.name)),
        'body/tenantGroups',
        `a group of embed tenant ${name}`,
      ),
    ];
    if (unknown.length > 0) throw new ValidationError('Unknown groups', unknown, 'unknown_group');
    const user = await this.deps.db.transaction().execute(async (trx) => {
      const tenant =
        existing ?? (await this.deps.identities.upsertTenant(tenantId, name.toLowerCase(), null, trx));
      const [before] = await this.deps.users.byExternalIds(tenantId, tenant.id, [externalId], trx);
      const row = await this.deps.identities.upsertUser(
        {
          tenantId,
          embedTenantId: tenant.id,
          externalId,
          email: body.email?.toLowerCase(),
          displayName: body.userProfile?.displayName,
          picture: body.userProfile?.picture,
          lifetime: { kind: 'permanent' },
          signsIn: false,
        },
        trx,
      );
      if (body.groups != null)
        await this.deps.groups.setGlobalGroups(
          row.id,
          globals.map((g) => g.id),
          trx,
        );
      if (body.tenantGroups != null)
        await this.deps.groups.setTenantGroups(
          row.id,
          locals.map((g) => g.id),
          trx,
        );
      // The groups an entry names are the lanes this request set; an omitted lane was kept.
      const profile = (u: typeof row) => ({
        embedTenant: tenant.name,
        externalId: u.external_id,
        email: u.email,
        displayName: u.display_name,
      });
      await this.deps.audit.record(trx, principal, {
        action: before ? 'embed_user.update' : 'embed_user.create',
        targetType: 'embed_user',
        targetId: row.id,
        before: before ? profile(before) : null,
        after: {
          ...profile(row),
          ...(body.groups != null ? { groups: globals.map((g) => g.name) } : {}),
          ...(body.tenantGroups != null ? { tenantGroups: locals.map((g) => g.name) } : {}),
        },
      });
      return row;
    });
    return embedUserView(user);
  }

  /** Reference `POST /embed-tenants/{name}/users`: partially successful, one user at a time, in order. */
  async provisionMany(principal: Principal, name: string, body: Static<typeof ProvisionEmbedUsersBody>) {
    const succeeded = [];
    const failed = [];
    for (const user of body.users) {
      try {
        succeeded.push(await this.provision(principal, name, user));
      } catch (error) {
        if (!(error instanceof DomainError) || error.status >= 500) throw error;
        failed.push({
          externalId: user.externalId.trim().toLowerCase(),
          error: { status: error.status, message: describe(error) },
        });
      }
    }
    return { succeeded, failed };
  }
}

/** What an audit entry says of an embed tenant. */
function tenantAudit(row: { name: string; display_name: string | null }) {
  return { name: row.name, displayName: row.display_name };
}

function describe(error: DomainError): string {
  return error.errors.length === 0
    ? error.message
    : `${error.message}: ${error.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`;
}
