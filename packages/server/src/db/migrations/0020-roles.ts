import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 items 1 and 2: roles of one kind for built-in and custom ones, assigned to users; the
 * users' own settings (`PATCH /api/v1/users/me/settings`); the family name identity providers
 * expect of the first admin. The built-in roles are rows without a tenant (`built_in` names the
 * account role they are); custom roles belong to a tenant, unique by name regardless of case.
 * A change to roles or assignments changes what credentials may do: it is announced like a change
 * to keys and users (migration 0003), so every replica's credential cache drops it at once.
 */
const statements = `
    CREATE TABLE roles (
      id serial PRIMARY KEY,
      tenant_id integer REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      policies jsonb NOT NULL DEFAULT '[]',
      built_in text UNIQUE CHECK (built_in IN ('admin', 'developer', 'viewer')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((tenant_id IS NULL) = (built_in IS NOT NULL))
    );
    CREATE UNIQUE INDEX roles_tenant_name ON roles (tenant_id, lower(name)) WHERE tenant_id IS NOT NULL;
    INSERT INTO roles (tenant_id, name, description, policies, built_in) VALUES
      (NULL, 'Admin', 'Everything in the account', '[{"resourceType":"Global","actions":["All"],"resources":["All"]}]', 'admin'),
      (NULL, 'Developer', 'Builds and edits data models, workbooks and dashboards', '[{"resourceType":"Global","actions":["AIBIDevelop"],"resources":["All"]}]', 'developer'),
      (NULL, 'Viewer', 'Reads dashboards and reports', '[{"resourceType":"Global","actions":["AIBIView"],"resources":["All"]}]', 'viewer');

    CREATE TABLE user_roles (
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role_id integer NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, role_id)
    );
    CREATE INDEX user_roles_role ON user_roles (role_id);

    CREATE TRIGGER roles_changed AFTER UPDATE OR DELETE ON roles
      FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('credentials');
    CREATE TRIGGER user_roles_changed AFTER INSERT OR UPDATE OR DELETE ON user_roles
      FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('credentials');

    ALTER TABLE users ADD COLUMN settings jsonb NOT NULL DEFAULT '{}';
    UPDATE users SET first_name = 'Tessera', last_name = 'Admin'
      WHERE username = 'admin' AND first_name = 'Admin' AND last_name IS NULL;
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE user_roles;
     DROP TABLE roles;
     ALTER TABLE users DROP COLUMN settings;`,
  );
}
