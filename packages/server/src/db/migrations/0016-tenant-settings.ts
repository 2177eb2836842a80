import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 item 4: the tenant settings of the reference's Tenant Settings group, one row per
 * tenant, absent (defaults) until an admin first writes them.
 */
const statements = `
    CREATE TABLE tenant_settings (
      tenant_id integer PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
      audit_log_enabled boolean NOT NULL DEFAULT false,
      audit_log_changed_at timestamptz,
      has_support_access boolean NOT NULL DEFAULT false,
      maintenance_window_enabled boolean NOT NULL DEFAULT false,
      maintenance_window_day text NOT NULL DEFAULT 'sunday',
      maintenance_window_time text NOT NULL DEFAULT '02:00',
      oidc_enabled boolean NOT NULL DEFAULT false,
      use_aibi_user_interface boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE tenant_settings');
}
