import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 23 item 6, second part: alerts delivered through the notifications' channels, with retry.
 * - `alert_recipients` may be a webhook: its URL, and its signing secret sealed like notification
 *   webhook secrets (crypto/secrets.ts), never returned.
 * - A fired result (`alert_check_results`) is the crossing's one delivery: `attempts` counts its
 *   sends, `retrying` with `next_attempt_at` waits for a later checker pass, and `lease_until`
 *   is the claim of the replica sending it now (taken over once it passes). The crossing is
 *   decided once, by migration 0034's state row; retries only resend that one result.
 * - `alert_delivery_attempts`: the run log of each send (its outcome, error and next retry).
 */
const statements = `
    ALTER TABLE alert_recipients ADD COLUMN webhook_url text;
    ALTER TABLE alert_recipients ADD COLUMN webhook_secret_sealed text;
    ALTER TABLE alert_check_results ADD COLUMN attempts integer NOT NULL DEFAULT 0;
    ALTER TABLE alert_check_results ADD COLUMN next_attempt_at timestamptz;
    ALTER TABLE alert_check_results ADD COLUMN lease_until timestamptz;
    CREATE INDEX alert_check_results_open ON alert_check_results (next_attempt_at)
      WHERE delivery IN ('sending', 'retrying');

    CREATE TABLE alert_delivery_attempts (
      check_id integer NOT NULL,
      recipient_key text NOT NULL,
      attempt integer NOT NULL,
      attempted_at timestamptz NOT NULL,
      outcome text NOT NULL,
      error text,
      retry_at timestamptz,
      PRIMARY KEY (check_id, recipient_key, attempt),
      FOREIGN KEY (check_id, recipient_key)
        REFERENCES alert_check_results (check_id, recipient_key) ON DELETE CASCADE
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE alert_delivery_attempts;
    DROP INDEX alert_check_results_open;
    ALTER TABLE alert_check_results DROP COLUMN lease_until;
    ALTER TABLE alert_check_results DROP COLUMN next_attempt_at;
    ALTER TABLE alert_check_results DROP COLUMN attempts;
    ALTER TABLE alert_recipients DROP COLUMN webhook_secret_sealed;
    ALTER TABLE alert_recipients DROP COLUMN webhook_url`,
  );
}
