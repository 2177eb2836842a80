import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { TenantSettingsChanges, TenantSettingsRepository } from './repository.ts';
import type { TenantSettings, TenantSettingsInput } from './schemas.ts';

type Settings = Static<typeof TenantSettings>;

/**
 * The account's tenant settings (reference group Tenant Settings): defaults until an admin writes
 * them. The audit-log switch takes effect at once (AuditLog.record reads it in each change's
 * transaction), so `auditLogEnabledCurrent` equals it; it is on unless turned off. Turning it on
 * or off is itself always recorded, so the log shows the gap.
 */
export class TenantSettingsService {
  constructor(
    private readonly db: Db,
    private readonly repository: TenantSettingsRepository,
    /** Issue 22 item 5: each change is recorded in its own transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  async get(principal: Principal, db?: Db): Promise<Settings> {
    const row = await this.repository.find(principal.tenantId, db);
    const auditLogEnabled = row?.audit_log_enabled ?? true;
    return {
      auditLogEnabled,
      auditLogEnabledCurrent: auditLogEnabled,
      auditLogEnabledTimestamp: row?.audit_log_changed_at?.getTime() ?? 0,
      hasSupportAccess: row?.has_support_access ?? false,
      useAIBIUserInterface: row?.use_aibi_user_interface ?? false,
      maintenanceWindowEnabled: row?.maintenance_window_enabled ?? false,
      maintenanceWindowDay: (row?.maintenance_window_day ?? 'sunday') as Settings['maintenanceWindowDay'],
      maintenanceWindowTime: row?.maintenance_window_time ?? '02:00',
      oidcEnabled: row?.oidc_enabled ?? false,
      auditLogRetentionDays: row?.audit_log_retention_days ?? 0,
    };
  }

  /** Only the fields sent change; a null, like an omitted field, leaves the value as it is. */
  async update(principal: Principal, input: Static<typeof TenantSettingsInput>): Promise<Settings> {
    const changes: TenantSettingsChanges = {};
    for (const [field, value] of Object.entries(input)) {
      if (value !== null && value !== undefined) Object.assign(changes, { [field]: value });
    }
    return this.db.transaction().execute(async (trx) => {
      const before = await this.get(principal, trx);
      await this.repository.upsert(principal.tenantId, changes, trx);
      const after = await this.get(principal, trx);
      await this.audit.record(trx, principal, {
        action: 'tenant_settings.update',
        targetType: 'tenant_settings',
        targetId: principal.tenantId,
        before,
        after,
        always: before.auditLogEnabled !== after.auditLogEnabled,
      });
      return after;
    });
  }
}
