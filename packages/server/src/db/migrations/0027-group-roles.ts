import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 item 2: roles assigned to groups as well as to users. A member of a group holds the
 * group's roles (modules/roles/repository.ts `heldRolesOf`). Assigning or removing a group's role,
 * and adding or removing a member, changes what that member's credentials may do: both tables
 * announce a change on the credentials topic, as user_roles does (migration 0020), so every
 * replica's credential cache drops it at once, whichever path wrote (the API, SCIM, a cascade).
 */
const statements = `
    CREATE TABLE group_roles (
      group_id integer NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
      role_id integer NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_id, role_id)
    );
    CREATE INDEX group_roles_role ON group_roles (role_id);

    CREATE TRIGGER group_roles_changed AFTER INSERT OR UPDATE OR DELETE ON group_roles
      FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('credentials');
    CREATE TRIGGER group_members_changed AFTER INSERT OR UPDATE OR DELETE ON group_members
      FOR EACH STATEMENT EXECUTE FUNCTION tessera_notify_change('credentials');
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP TRIGGER group_members_changed ON group_members;
     DROP TABLE group_roles;`,
  );
}
