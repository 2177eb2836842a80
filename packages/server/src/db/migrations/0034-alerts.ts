import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 23 item 6: alerts on measures (modules/alerts). An alert reads one measure on a schedule
 * (the notifications' cron, evaluated in its IANA zone) and mails its recipients when a condition
 * starts to hold. Its checks are planned like notification runs: one row per (alert, fire time),
 * unique, so a second replica planning the same fire time is a no-op, and claimed with a lease.
 * `alert_states` keeps, per (alert, recipient), whether the condition held at the last check: an
 * alert fires only on the false -> true edge, decided under that row's lock in the transaction
 * that records the check's result, so two replicas never both fire. `alert_check_results` is the
 * run log: each recipient's value, whether it fired, and the delivery's outcome.
 */
const statements = `
    CREATE TABLE alerts (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      owner_id integer REFERENCES users(id) ON DELETE SET NULL,
      name text NOT NULL,
      query jsonb NOT NULL,
      condition jsonb NOT NULL,
      security_context text NOT NULL,
      schedule_type text NOT NULL,
      minute integer,
      hour integer,
      day_of_week integer,
      day_of_month integer,
      custom_cron text,
      cron_expression text NOT NULL,
      timezone text NOT NULL,
      is_enabled boolean NOT NULL DEFAULT true,
      last_fire_at timestamptz NOT NULL,
      next_fire_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX alerts_by_deployment ON alerts (deployment_id, id DESC);
    CREATE INDEX alerts_due ON alerts (next_fire_at) WHERE is_enabled;

    CREATE TABLE alert_recipients (
      alert_id integer NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
      recipient_key text NOT NULL,
      user_id integer REFERENCES users(id) ON DELETE CASCADE,
      email text,
      PRIMARY KEY (alert_id, recipient_key)
    );

    CREATE TABLE alert_checks (
      id serial PRIMARY KEY,
      alert_id integer NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
      fire_time timestamptz,
      trigger text NOT NULL,
      state text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      lease_until timestamptz,
      claimed_by text,
      error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      UNIQUE (alert_id, fire_time)
    );
    CREATE INDEX alert_checks_open ON alert_checks (id) WHERE state IN ('pending', 'running');
    CREATE INDEX alert_checks_log ON alert_checks (alert_id, id DESC);

    CREATE TABLE alert_check_results (
      check_id integer NOT NULL REFERENCES alert_checks(id) ON DELETE CASCADE,
      recipient_key text NOT NULL,
      address text,
      value double precision,
      previous_value double precision,
      condition_met boolean,
      fired boolean NOT NULL DEFAULT false,
      delivery text NOT NULL,
      error text,
      sent_at timestamptz,
      PRIMARY KEY (check_id, recipient_key)
    );

    CREATE TABLE alert_states (
      alert_id integer NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
      recipient_key text NOT NULL,
      condition_met boolean NOT NULL DEFAULT false,
      changed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (alert_id, recipient_key)
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    'DROP TABLE alert_states;\nDROP TABLE alert_check_results;\nDROP TABLE alert_checks;\nDROP TABLE alert_recipients;\nDROP TABLE alerts',
  );
}
