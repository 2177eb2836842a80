import { type RawBuilder, sql } from 'kysely';
import type { HeldRole } from '../../auth/roles.ts';

/**
 * The roles a user holds through assignments, their own and their groups' (migration 0027), as
 * one JSON array for the credential lookups (modules/api-keys, modules/sign-in):
 * `[{builtIn, policies}]`. A role held both ways counts once. One round trip stays one.
 */
export function heldRolesOf(userIdColumn: string): RawBuilder<HeldRole[]> {
  const user = sql.ref(userIdColumn);
  return sql<
    HeldRole[]
  >`(select coalesce(json_agg(json_build_object('builtIn', r.built_in, 'policies', r.policies)), '[]'::json)
    from roles r where r.id in (
      select ur.role_id from user_roles ur where ur.user_id = ${user}
      union
      select gr.role_id from group_roles gr join group_members gm on gm.group_id = gr.group_id
        where gm.user_id = ${user}))`;
}
