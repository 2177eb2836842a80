import type { ContentPermissionRow } from '../../db/schema.ts';
import { type OwnerColumns, ownerView } from '../workspace/common.ts';
import type { AccessContext, Placed } from './access.ts';

/**
 * Owner identities an embed user may see (issue 12; the reference's `GET /shared-workspace`:
 * "Owner identities are blanked out so they are not exposed to embed users"). An embed token sees
 * who owns what lives in its own tenant's space (its fellow embed users); of anything else (the
 * host's content shared with it) it sees no account user's id, name or email. Account callers see
 * every owner. Every response an embed token can read builds its owner fields here.
 */
export function showsOwnerOf(ctx: AccessContext, row: Placed): boolean {
  return tenantSeesOwner(ctx.embedTenantId, row.embed_tenant_id);
}

/**
 * The same rule from the two tenant ids: the viewer's embed tenant (undefined for an account
 * caller, null for an embed token without one) and the item's tenant space (null: the host's).
 */
export function tenantSeesOwner(
  viewerTenantId: number | null | undefined,
  itemTenantId: number | null | undefined,
): boolean {
  if (viewerTenantId === undefined) return true;
  return viewerTenantId !== null && (itemTenantId ?? null) === viewerTenantId;
}

export interface OwnedRow extends Placed, OwnerColumns {
  user_id: number | null;
  created_by: number | null;
}

/** Blank owner fields: the shared workspace's items, and host content seen by an embed user. */
export const noOwner = { userId: null, createdBy: null, user: null } as const;

/** The `userId`, `createdBy` and `user` of a workbook, report or workspace item, as `ctx` may see them. */
export function ownerFields(ctx: AccessContext, row: OwnedRow) {
  if (!showsOwnerOf(ctx, row)) return noOwner;
  return { userId: row.user_id, createdBy: row.created_by, user: ownerView(row.user_id, row) };
}

/**
 * Grants an embed user may see: those naming embed users or embed tenant groups (its Share
 * dialog lists them); grants naming account users or global groups would tell it who in the
 * host's account holds the item, so they are left out (spec 4.3 rule 1: global groups are not
 * shown in creator mode). Account callers see every grant.
 */
export function showsGrantee(ctx: AccessContext, grant: ContentPermissionRow): boolean {
  if (ctx.embedTenantId === undefined) return true;
  return grant.embed_user_id !== null || grant.embed_group_id !== null;
}
