import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { AuditLogRow } from '../../db/schema.ts';

export interface AuditRowInput {
  tenantId: number;
  actorUserId: number | null;
  credentialKind: string | null;
  credentialId: number | null;
  requestId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  before: unknown;
  after: unknown;
}

export interface AuditFilter {
  action?: string;
  targetType?: string;
  targetId?: string;
  actorUserId?: number;
  requestId?: string;
  from?: Date;
  to?: Date;
  /** Keyset: only rows older than this id (the list is newest first). */
  beforeId?: number;
}

/**
 * `audit_log`: plain Kysely, no rules. Rows are only ever inserted, and deleted only by the
 * retention sweep (sweeper.ts).
 */
export class AuditLogRepository {
  constructor(private readonly db: Db) {}

  /** Written with the caller's transaction: the change and its row commit or roll back together. */
  async insert(row: AuditRowInput, trx: Db): Promise<void> {
    await trx
      .insertInto('audit_log')
      .values({
        tenant_id: row.tenantId,
        actor_user_id: row.actorUserId,
        // The actor as they were named then; their later removal keeps the trail readable.
        actor_email:
          row.actorUserId === null
            ? null
            : sql<string | null>`(select email from users where id = ${row.actorUserId})`,
        credential_kind: row.credentialKind,
        credential_id: row.credentialId,
        request_id: row.requestId,
        action: row.action,
        target_type: row.targetType,
        target_id: row.targetId,
        before: row.before === null ? null : JSON.stringify(row.before),
        after: row.after === null ? null : JSON.stringify(row.after),
      })
      .execute();
  }

  list(tenantId: number, filter: AuditFilter, limit: number): Promise<AuditLogRow[]> {
    let q = this.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', tenantId);
    if (filter.action !== undefined)
      q = filter.action.endsWith('*')
        ? q.where('action', 'like', `${escapeLike(filter.action.slice(0, -1))}%`)
        : q.where('action', '=', filter.action);
    if (filter.targetType !== undefined) q = q.where('target_type', '=', filter.targetType);
    if (filter.targetId !== undefined) q = q.where('target_id', '=', filter.targetId);
    if (filter.actorUserId !== undefined) q = q.where('actor_user_id', '=', filter.actorUserId);
    if (filter.requestId !== undefined) q = q.where('request_id', '=', filter.requestId);
    if (filter.from !== undefined) q = q.where('occurred_at', '>=', filter.from);
    if (filter.to !== undefined) q = q.where('occurred_at', '<', filter.to);
    if (filter.beforeId !== undefined) q = q.where('id', '<', sql<string>`${filter.beforeId}::bigint`);
    return q.orderBy('id', 'desc').limit(limit).execute();
  }

  /**
   * Deletes up to `limit` entries older than their tenant's retention (tenant settings
   * `auditLogRetentionDays`; 0 keeps them), oldest first; answers how many. Replicas sweep
   * together: SKIP LOCKED hands each row to one of them.
   */
  async deleteExpired(limit: number): Promise<number> {
    const rows = await this.db
      .deleteFrom('audit_log')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('audit_log as a')
          .innerJoin('tenant_settings as s', 's.tenant_id', 'a.tenant_id')
          .select('a.id')
          .where('s.audit_log_retention_days', '>', 0)
          .where(sql<boolean>`a.occurred_at < now() - s.audit_log_retention_days * interval '1 day'`)
          .orderBy('a.id')
          .limit(limit)
          .forUpdate('a')
          .skipLocked(),
      )
      .returning('id')
      .execute();
    return rows.length;
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
