import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 23 item 1: the dashboard editor saves the workbook's draft as you go, and two editors of
 * one draft must not silently overwrite each other. `draft_version` counts the draft's saves; a
 * save that names the version it was based on is refused with 409 when another save came first
 * (one conditional UPDATE, so that of two concurrent saves from one version only one wins).
 * `draft_saved_by` and `draft_saved_at` say who saved it last and when, for the refused editor.
 */
const statements = `
    ALTER TABLE workbooks ADD COLUMN draft_version integer NOT NULL DEFAULT 0;
    ALTER TABLE workbooks ADD COLUMN draft_saved_by integer REFERENCES users(id) ON DELETE SET NULL;
    ALTER TABLE workbooks ADD COLUMN draft_saved_at timestamptz;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    'ALTER TABLE workbooks DROP COLUMN draft_saved_at; ALTER TABLE workbooks DROP COLUMN draft_saved_by; ALTER TABLE workbooks DROP COLUMN draft_version',
  );
}
