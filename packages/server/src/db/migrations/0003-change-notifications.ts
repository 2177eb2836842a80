import { type Kysely, sql } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Cache invalidation across replicas: a statement that changes credentials, users or deployments
 * NOTIFYs the channel read by cache/invalidation-bus.ts. NOTIFY is transactional, so readers hear
 * of a change only once it is committed and visible.
 */
const notifyFunction = `
  CREATE FUNCTION tessera_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('tessera_cache_invalidation', TG_ARGV[0]);
    RETURN NULL;
  END
  $$`;

const triggers = `
  CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('credentials');
  CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('credentials');
  CREATE TRIGGER deployments_changed AFTER INSERT OR UPDATE OR DELETE ON deployments
    FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('deployments');
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(notifyFunction).execute(db);
  await runStatements(db, triggers);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP TRIGGER api_keys_changed ON api_keys;
     DROP TRIGGER users_changed ON users;
     DROP TRIGGER deployments_changed ON deployments;
     DROP FUNCTION tessera_notify_change();`,
  );
}
