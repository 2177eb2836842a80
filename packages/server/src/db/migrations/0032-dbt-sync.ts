import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 25 item 3: dbt sync jobs (the reference's dbt Sync group). A job is one row any replica
 * can answer for: the manifest it converts (dropped once the job ends), its stage, its log, the
 * files it generated and its outcome. `claim_token` and `lease_until` make one replica the job's
 * runner (modules/dbt-sync/repository.ts `claim`); the runner commits the files and the job's end
 * in one transaction that re-checks its claim, so a job is never generated onto its branch twice.
 * `seq` orders the list (newest first) and is its cursor; `sync_job_id` is the public id.
 */
const statements = `
    CREATE TABLE dbt_sync_jobs (
      seq serial PRIMARY KEY,
      sync_job_id text NOT NULL UNIQUE,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      user_id integer REFERENCES users(id) ON DELETE SET NULL,
      actor jsonb NOT NULL,
      trigger text NOT NULL,
      source text NOT NULL,
      output text NOT NULL,
      branch_name text NOT NULL,
      git_ref text,
      status text NOT NULL DEFAULT 'RUNNING',
      stage text NOT NULL DEFAULT 'INITIALIZING',
      manifest jsonb,
      logs jsonb NOT NULL DEFAULT '[]',
      generated_files jsonb NOT NULL DEFAULT '[]',
      stats jsonb,
      phases jsonb,
      error text,
      failed_phase text,
      claim_token text,
      lease_until timestamptz,
      started_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      duration_ms integer
    );
    CREATE INDEX dbt_sync_jobs_list ON dbt_sync_jobs (deployment_id, seq DESC);
    CREATE INDEX dbt_sync_jobs_running ON dbt_sync_jobs (lease_until) WHERE status = 'RUNNING';
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE dbt_sync_jobs');
}
