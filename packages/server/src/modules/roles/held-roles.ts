import { type RawBuilder, sql } from 'kysely';
import type { HeldRole } from '../../auth/roles.ts';

/**
 * The roles a user holds through assignments, as one JSON array for the credential lookups
 * (modules/api-keys, modules/sign-in): `[{builtIn, policies}]`. One round trip stays one.
 */
export function heldRolesOf(userIdColumn: string): RawBuilder<HeldRole[]> {
  return sql<
    HeldRole[]
  >`(select coalesce(json_agg(json_build_object('builtIn', r.built_in, 'policies', r.policies)), '[]'::json)
    from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = ${sql.ref(userIdColumn)})`;
}
