import { Type } from 'typebox';
import { nullable, strict } from '../workspace/common.ts';

/** Days a maintenance window may fall on; the reference types the field as a plain string. */
export const weekdays = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;

/** `HH:MM`, 24-hour, in UTC. */
const timeOfDay = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'Start of the maintenance window, `HH:MM` (24-hour, UTC)',
});

/** The reference's TenantSettings (group Tenant Settings). */
export const TenantSettings = Type.Object({
  auditLogEnabled: Type.Boolean({ description: 'Whether management changes are recorded in the audit log' }),
  auditLogEnabledCurrent: Type.Boolean({ description: 'The audit-log setting in effect now' }),
  auditLogEnabledTimestamp: Type.Integer({
    description: 'When `auditLogEnabled` last changed, in Unix milliseconds; 0 if it never did',
  }),
  hasSupportAccess: Type.Boolean(),
  useAIBIUserInterface: Type.Boolean(),
  maintenanceWindowEnabled: Type.Boolean(),
  maintenanceWindowDay: Type.Enum(weekdays),
  maintenanceWindowTime: Type.String(),
  oidcEnabled: Type.Boolean(),
  auditLogRetentionDays: Type.Integer({
    description:
      'Audit entries older than this many days are deleted (a sweep runs every few minutes); 0 keeps them forever',
  }),
});

/** The reference's TenantSettingsInput: every field optional; omitted or null leaves it unchanged. */
export const TenantSettingsInput = Type.Object(
  {
    auditLogEnabled: Type.Optional(nullable(Type.Boolean())),
    hasSupportAccess: Type.Optional(nullable(Type.Boolean())),
    maintenanceWindowDay: Type.Optional(nullable(Type.Enum(weekdays))),
    maintenanceWindowEnabled: Type.Optional(nullable(Type.Boolean())),
    maintenanceWindowTime: Type.Optional(nullable(timeOfDay)),
    oidcEnabled: Type.Optional(nullable(Type.Boolean())),
    useAIBIUserInterface: Type.Optional(nullable(Type.Boolean())),
    auditLogRetentionDays: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 0,
          maximum: 36500,
          description: 'Days audit entries are kept; 0 keeps them forever',
        }),
      ),
    ),
  },
  strict,
);
