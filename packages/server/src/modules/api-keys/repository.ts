import { sql } from 'kysely';
import type { HeldRole } from '../../auth/roles.ts';
import type { Db } from '../../db/database.ts';
import type { AccountRole, ApiKeyRow, CredentialKind } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import { heldRolesOf } from '../roles/held-roles.ts';

export interface CredentialLookup {
  id: number;
  tenant_id: number;
  user_id: number;
  kind: CredentialKind;
  deployment_ids: number[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  role: AccountRole;
  is_deactivated: boolean;
  /** The roles assigned to the key's user (modules/roles), folded in by auth/roles.ts. */
  held_roles: HeldRole[];
}

export interface NewApiKey {
  tenantId: number;
  userId: number;
  name: string;
  kind: CredentialKind;
  hash: string;
  prefix: string;
  deploymentIds: number[] | null;
  expiresAt: Date | null;
}

export class ApiKeysRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** One round trip per authenticated request: the key with its owner's role and state. */
  findByHash(hash: string): Promise<CredentialLookup | undefined> {
    return this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'k.id',
        'k.tenant_id',
        'k.user_id',
        'k.kind',
        'k.deployment_ids',
        'k.expires_at',
        'k.revoked_at',
        'u.role',
        'u.is_deactivated',
        heldRolesOf('u.id').as('held_roles'),
      ])
      .where('k.key_hash', '=', hash)
      .executeTakeFirst();
  }

  insert(input: NewApiKey, db: Db = this.db): Promise<ApiKeyRow> {
    return db
      .insertInto('api_keys')
      .values({
        tenant_id: input.tenantId,
        user_id: input.userId,
        name: input.name,
        kind: input.kind,
        key_hash: input.hash,
        key_prefix: input.prefix,
        deployment_ids: input.deploymentIds,
        expires_at: input.expiresAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  findById(tenantId: number, id: number): Promise<ApiKeyRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Sets revoked_at once; a second revocation keeps the first time. */
  revoke(tenantId: number, id: number, db: Db = this.db): Promise<ApiKeyRow | undefined> {
    return db
      .updateTable('api_keys')
      .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  revokeAllOfUser(userId: number, db: Db = this.db) {
    return db
      .updateTable('api_keys')
      .set({ revoked_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  }

  list(filter: ApiKeyListFilter, window: PageWindow): Promise<ApiKeyRow[]> {
    let q = this.db.selectFrom('api_keys').selectAll().where('tenant_id', '=', filter.tenantId).orderBy('id');
    if (filter.userId !== undefined) q = q.where('user_id', '=', filter.userId);
    if (!filter.includeRevoked) q = q.where('revoked_at', 'is', null);
    return pageById(q, window, 'id').execute();
  }

  async existingDeploymentIds(tenantId: number, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('deployments')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .execute();
    return rows.map((r) => r.id);
  }

  touch(id: number) {
    return this.db
      .updateTable('api_keys')
      .set({ last_used_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }
}

export interface ApiKeyListFilter {
  tenantId: number;
  /** Only this user's keys (non-admins see their own). */
  userId?: number;
  includeRevoked: boolean;
}
