import type { Static } from 'typebox';
import type { EmbedUserRow } from '../../db/schema.ts';
import type { EmbedGroupWithCount } from './groups-repository.ts';
import type { EmbedGroup, EmbedTenant, EmbedUser } from './schemas.ts';
import type { EmbedTenantWithCount } from './tenants-repository.ts';

/** The reference's EmbedTenant, UserGroupDTO and EmbedUser, from rows. */

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function embedTenantView(row: EmbedTenantWithCount): Static<typeof EmbedTenant> {
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    userCount: row.user_count,
    createdAt: iso(row.created_at),
  };
}

export function embedGroupView(row: EmbedGroupWithCount): Static<typeof EmbedGroup> {
  return { id: row.id, name: row.name, description: row.description, userCount: row.user_count };
}

export function embedUserView(row: EmbedUserRow): Static<typeof EmbedUser> {
  return {
    id: row.id,
    username: row.external_id,
    email: row.email,
    externalId: row.external_id,
    firstName: row.display_name,
    createdAt: iso(row.created_at),
    lastLogin: iso(row.last_login),
  };
}
