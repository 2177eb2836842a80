import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 21 item 2: the SQL editor's query history, one list per user and deployment, newest
 * first and bounded (modules/query-history trims it on every write). Only its user reads it, so
 * it goes with the user and with the deployment.
 */
const statements = `
    CREATE TABLE query_history (
      id serial PRIMARY KEY,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      sql text NOT NULL,
      row_count integer,
      duration_ms integer,
      error text,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE INDEX query_history_user_deployment ON query_history (user_id, deployment_id, id DESC);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE query_history');
}
