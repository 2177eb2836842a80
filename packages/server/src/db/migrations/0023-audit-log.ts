import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 item 5: the audit log. One row per management change, written by the changing service
 * in the change's own transaction (modules/audit-log), so that a change and its row commit or roll
 * back together. Actors are kept by id and email as they were then: deleting a user keeps the
 * trail. `before`/`after` are the changed resource's public shapes with secrets redacted.
 */
const statements = `
    CREATE TABLE audit_log (
      id bigserial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      actor_user_id integer,
      actor_email text,
      credential_kind text,
      credential_id integer,
      request_id text,
      action text NOT NULL,
      target_type text NOT NULL,
      target_id text,
      before jsonb,
      after jsonb
    );
    CREATE INDEX audit_log_tenant ON audit_log (tenant_id, id DESC);
    CREATE INDEX audit_log_tenant_target ON audit_log (tenant_id, target_type, target_id);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE audit_log');
}
