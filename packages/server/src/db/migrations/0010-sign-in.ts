import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Browser sign-in (DESIGN.md "Web app and sessions"). A user's password is kept only as an
 * argon2id hash (PHC string); null means the user has no password and cannot sign in (users
 * provisioned by SCIM sign in through their identity provider). A browser session is stored as
 * the SHA-256 hash of its id (DESIGN.md "Persistence"), with its two limits: `expires_at` is the
 * absolute one, fixed at sign-in; the idle one is read from `last_seen_at` and the configured idle
 * timeout, so that changing the setting applies to sessions already open. Signing out or
 * deactivating the user sets `revoked_at`; the row stays until the user's next sign-in prunes it.
 * Setting `revoked_at` notifies the credential caches of every replica (as 0003 does for keys and
 * users); the once-a-minute `last_seen_at` writes do not.
 */
const statements = `
    ALTER TABLE users ADD COLUMN password_hash text;

    CREATE TABLE browser_sessions (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      session_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    );
    CREATE INDEX browser_sessions_user ON browser_sessions (user_id);

    CREATE TRIGGER browser_sessions_revoked AFTER UPDATE OF revoked_at ON browser_sessions
      FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('credentials');
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE browser_sessions; ALTER TABLE users DROP COLUMN password_hash');
}
