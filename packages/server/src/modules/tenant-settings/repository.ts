import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface TenantSettingsChanges {
  auditLogEnabled?: boolean;
  hasSupportAccess?: boolean;
  maintenanceWindowEnabled?: boolean;
  maintenanceWindowDay?: string;
  maintenanceWindowTime?: string;
  oidcEnabled?: boolean;
  useAIBIUserInterface?: boolean;
  auditLogRetentionDays?: number;
}

const columns = {
  auditLogEnabled: 'audit_log_enabled',
  hasSupportAccess: 'has_support_access',
  maintenanceWindowEnabled: 'maintenance_window_enabled',
  maintenanceWindowDay: 'maintenance_window_day',
  maintenanceWindowTime: 'maintenance_window_time',
  oidcEnabled: 'oidc_enabled',
  useAIBIUserInterface: 'use_aibi_user_interface',
  auditLogRetentionDays: 'audit_log_retention_days',
} as const;

/** `tenant_settings`: one row per tenant, absent until first written; plain Kysely, no rules. */
export class TenantSettingsRepository {
  constructor(private readonly db: Db) {}

  find(tenantId: number, db: Db = this.db) {
    return db.selectFrom('tenant_settings').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  }

  /**
   * Whether the tenant records its audit log, read in the caller's transaction (modules/audit-log):
   * on until an admin turns it off, so also when no settings were ever written.
   */
  async auditLogEnabled(tenantId: number, db: Db = this.db): Promise<boolean> {
    const row = await db
      .selectFrom('tenant_settings')
      .select('audit_log_enabled')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.audit_log_enabled ?? true;
  }

  /**
   * Writes only the fields given, as one upsert (two first writes cannot collide); the audit-log
   * change time moves only when the value really changes.
   */
  async upsert(tenantId: number, changes: TenantSettingsChanges, db: Db = this.db): Promise<void> {
    const set: Record<string, unknown> = {};
    for (const [field, column] of Object.entries(columns)) {
      const value = changes[field as keyof TenantSettingsChanges];
      if (value !== undefined) set[column] = value;
    }
    const auditChanged = changes.auditLogEnabled !== undefined;
    await db
      .insertInto('tenant_settings')
      .values({
        tenant_id: tenantId,
        ...set,
        // A first write moves the switch only when it turns the log off (it is on by default).
        ...(changes.auditLogEnabled === false ? { audit_log_changed_at: sql<Date>`now()` } : {}),
      })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet({
          ...set,
          ...(auditChanged
            ? {
                audit_log_changed_at: sql<Date | null>`case when tenant_settings.audit_log_enabled
                  is distinct from excluded.audit_log_enabled then now()
                  else tenant_settings.audit_log_changed_at end`,
              }
            : {}),
          updated_at: sql<Date>`now()`,
        }),
      )
      .execute();
  }
}
