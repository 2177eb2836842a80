import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * The tenant-wide "restrict data download" setting (spec 2.3's `restrictDataDownload`, reference
 * AppConfigResponse): when on, published dashboards tell viewers not to offer data downloads.
 * Existing rows, and tenants without a row, read as off.
 */
const statements = `
    ALTER TABLE app_configs ADD COLUMN restrict_data_download boolean NOT NULL DEFAULT false;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'ALTER TABLE app_configs DROP COLUMN restrict_data_download');
}
