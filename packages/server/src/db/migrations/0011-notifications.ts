import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Scheduled notifications (spec 2.5, 4.5, 6) and dashboard exports (the reference's Dashboard
 * Exports group), DESIGN.md "Notifications and rendering".
 *
 * - `notifications`: the schedule as given (`schedule_type` and time fields, kept so that an
 *   update of one field rebuilds the cron expression from the others) and as evaluated
 *   (`cron_expression`, `timezone`). `last_fire_at` is the fire time the scheduler last handled
 *   (the creation time before the first run), `next_fire_at` the next one; the partial index is
 *   what every replica's scheduler scans for due notifications.
 * - `notification_recipients`: one row per recipient, unique per notification by `recipient_key`
 *   (`user:12`, `embed:7`, `email:a@b.c`, `webhook:https://...`), so adding the same recipient
 *   twice keeps one subscription.
 * - `notification_runs`: one row per (notification, fire time), unique: two replicas planning the
 *   same fire time insert one run. A run is claimed with FOR UPDATE SKIP LOCKED and a lease; a
 *   claim whose lease passed without the run finishing (a crashed replica) is claimed again.
 * - `notification_deliveries`: one row per (run, recipient), the delivery key of DESIGN.md
 *   (notification, fire time, recipient): a send is claimed row by row, and a row once `sent` is
 *   never sent again, whichever replica retries the run.
 * - `dashboard_exports`: export jobs and their rendered file, readable from any replica until
 *   `expires_at`.
 */
const statements = `
    CREATE TABLE notifications (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      dashboard_id integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
      owner_id integer REFERENCES users(id) ON DELETE SET NULL,
      schedule_type text NOT NULL CHECK (schedule_type IN ('HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM')),
      minute smallint,
      hour smallint,
      day_of_week smallint,
      day_of_month smallint,
      custom_cron text,
      cron_expression text NOT NULL,
      timezone text NOT NULL,
      is_enabled boolean NOT NULL DEFAULT true,
      notification_enabled boolean NOT NULL DEFAULT true,
      notification_format text NOT NULL DEFAULT 'png' CHECK (notification_format IN ('png', 'pdf')),
      notification_ai_summary boolean NOT NULL DEFAULT false,
      filters jsonb,
      time_grains jsonb,
      member_switchers jsonb,
      last_fire_at timestamptz NOT NULL,
      next_fire_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX notifications_deployment ON notifications (deployment_id, id);
    CREATE INDEX notifications_dashboard ON notifications (dashboard_id);
    CREATE INDEX notifications_due ON notifications (next_fire_at)
      WHERE is_enabled AND notification_enabled AND next_fire_at IS NOT NULL;

    CREATE TABLE notification_recipients (
      id serial PRIMARY KEY,
      notification_id integer NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('USER', 'EMBED_USER', 'EMAIL', 'WEBHOOK')),
      recipient_key text NOT NULL,
      user_id integer REFERENCES users(id) ON DELETE CASCADE,
      embed_user_id integer REFERENCES embed_users(id) ON DELETE CASCADE,
      email text,
      username text,
      webhook_url text,
      webhook_secret_enc text,
      security_context jsonb,
      user_attributes jsonb,
      groups jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (notification_id, recipient_key)
    );
    CREATE INDEX notification_recipients_user ON notification_recipients (user_id) WHERE user_id IS NOT NULL;
    CREATE INDEX notification_recipients_embed_user ON notification_recipients (embed_user_id)
      WHERE embed_user_id IS NOT NULL;

    CREATE TABLE notification_runs (
      id serial PRIMARY KEY,
      notification_id integer NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
      fire_time timestamptz NOT NULL,
      state text NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'running', 'succeeded', 'partially_failed', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      lease_until timestamptz,
      lease_owner text,
      error text,
      failed_widgets jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      UNIQUE (notification_id, fire_time)
    );
    CREATE INDEX notification_runs_open ON notification_runs (next_attempt_at)
      WHERE state IN ('pending', 'running');

    CREATE TABLE notification_deliveries (
      run_id integer NOT NULL REFERENCES notification_runs(id) ON DELETE CASCADE,
      recipient_key text NOT NULL,
      recipient_id integer REFERENCES notification_recipients(id) ON DELETE SET NULL,
      type text NOT NULL,
      address text NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      lease_until timestamptz,
      error text,
      sent_at timestamptz,
      PRIMARY KEY (run_id, recipient_key)
    );

    CREATE TABLE dashboard_exports (
      id text PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      dashboard_id integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
      requested_by integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      format text NOT NULL CHECK (format IN ('png', 'pdf')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
      request jsonb NOT NULL,
      content_type text,
      file bytea,
      error text,
      lease_until timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX dashboard_exports_open ON dashboard_exports (status, created_at)
      WHERE status IN ('pending', 'processing');
    CREATE INDEX dashboard_exports_expiry ON dashboard_exports (expires_at);
    CREATE INDEX dashboard_exports_requester ON dashboard_exports (requested_by, status);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    'DROP TABLE dashboard_exports, notification_deliveries, notification_runs, notification_recipients, notifications',
  );
}
