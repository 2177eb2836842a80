import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 items 4 and 5: the audit-log switch of tenant settings takes effect, and entries are
 * kept for a retention the account chooses.
 * - The log is on unless an admin turns it off. Until now every change was recorded whatever the
 *   stored flag said (its default was false), so an account whose switch never moved keeps
 *   recording; one that turned it off (a change time is kept) stays off.
 * - `audit_log_retention_days`: entries older than this many days are deleted by the sweep
 *   (modules/audit-log/sweeper.ts); 0 keeps them forever.
 */
const statements = `
    ALTER TABLE tenant_settings ALTER COLUMN audit_log_enabled SET DEFAULT true;
    UPDATE tenant_settings SET audit_log_enabled = true WHERE audit_log_changed_at IS NULL;
    ALTER TABLE tenant_settings ADD COLUMN audit_log_retention_days integer NOT NULL DEFAULT 0
      CHECK (audit_log_retention_days BETWEEN 0 AND 36500);
    CREATE INDEX audit_log_tenant_occurred ON audit_log (tenant_id, occurred_at);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP INDEX audit_log_tenant_occurred;
     ALTER TABLE tenant_settings DROP COLUMN audit_log_retention_days;
     ALTER TABLE tenant_settings ALTER COLUMN audit_log_enabled SET DEFAULT false;`,
  );
}
