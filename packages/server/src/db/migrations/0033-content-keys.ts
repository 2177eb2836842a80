import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 25 item 6 (content kept as code, modules/content): a notification has no public id, so the
 * file that describes it names it with a key of its own, kept here so that applying the same
 * directory twice finds the notification it created the first time. Unique per deployment; null
 * for notifications made through the API, which an export names by their dashboard and order.
 */
const statements = `
    ALTER TABLE notifications ADD COLUMN content_key text;
    CREATE UNIQUE INDEX notifications_content_key ON notifications (deployment_id, content_key)
      WHERE content_key IS NOT NULL;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    'DROP INDEX notifications_content_key;\nALTER TABLE notifications DROP COLUMN content_key',
  );
}
