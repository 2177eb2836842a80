import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { TenantSettingsChanges, TenantSettingsRepository } from './repository.ts';
import type { TenantSettings, TenantSettingsInput } from './schemas.ts';

type Settings = Static<typeof TenantSettings>;

/**
 * The account's tenant settings (reference group Tenant Settings): defaults until an admin writes
 * them. The audit-log switch takes effect at once, so `auditLogEnabledCurrent` equals it.
 */
export class TenantSettingsService {
  constructor(private readonly repository: TenantSettingsRepository) {}

  async get(principal: Principal): Promise<Settings> {
    const row = await this.repository.find(principal.tenantId);
    const auditLogEnabled = row?.audit_log_enabled ?? false;
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
    };
  }

  /** Only the fields sent change; a null, like an omitted field, leaves the value as it is. */
  async update(principal: Principal, input: Static<typeof TenantSettingsInput>): Promise<Settings> {
    const changes: TenantSettingsChanges = {};
    for (const [field, value] of Object.entries(input)) {
      if (value !== null && value !== undefined) Object.assign(changes, { [field]: value });
    }
    await this.repository.upsert(principal.tenantId, changes);
    return this.get(principal);
  }
}
