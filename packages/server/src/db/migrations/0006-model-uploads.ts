import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Data-model upload transactions (the reference's Data Model Uploads group: `upload/start`,
 * `upload/file`, `upload/finish`). A session collects files until it is finished; finishing marks
 * `finished_at` under a row lock, so two parallel finishes apply the session once. Sessions that
 * are never finished expire (`expires_at`) and are swept on the next start; their files go with
 * them (ON DELETE CASCADE).
 */
const statements = `
    CREATE TABLE model_upload_sessions (
      id text PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      branch text NOT NULL,
      user_id integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      finished_at timestamptz,
      last_hash text
    );
    CREATE INDEX model_upload_sessions_expiry ON model_upload_sessions (expires_at);

    CREATE TABLE model_upload_files (
      session_id text NOT NULL REFERENCES model_upload_sessions(id) ON DELETE CASCADE,
      path text NOT NULL,
      content text NOT NULL,
      hash text NOT NULL,
      PRIMARY KEY (session_id, path)
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE model_upload_files; DROP TABLE model_upload_sessions;');
}
