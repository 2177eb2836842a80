import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 item 4: env variables per deployment (reference group Env Variables), values sealed
 * with the SecretBox (crypto/secrets.ts), never stored in clear. A change notifies `deployments`,
 * as a change to the deployment does (migration 0003): data sources resolve `${NAME}` from them,
 * so every replica must reconnect with the new values.
 */
const statements = `
    CREATE TABLE env_variables (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      name text NOT NULL,
      value_enc text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (deployment_id, name)
    );

    CREATE TRIGGER env_variables_changed AFTER INSERT OR UPDATE OR DELETE ON env_variables
      FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('deployments');
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE env_variables');
}
