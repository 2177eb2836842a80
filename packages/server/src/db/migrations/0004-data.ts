import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Data API: a change to a deployment's model files must drop its compiled model on every replica
 * (modules/data/model-cache.ts). Model files belong to a deployment, so their changes announce
 * the `deployments` topic through the notify function of migration 0003.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `CREATE TRIGGER model_files_changed AFTER INSERT OR UPDATE OR DELETE ON model_files
       FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('deployments');`,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TRIGGER model_files_changed ON model_files;');
}
