import { type TSchema, Type } from 'typebox';
import { PageInfoSchema } from '../../pagination/page.ts';
import { Id, int32 } from '../deployments/schemas.ts';
import { contentTypes } from '../permissions/content.ts';

/** Schema pieces shared by folders, workbooks, reports, dashboards and the workspace (spec section 2.1). */

/** dashboard-data's schemas still import the id bounds from here; they are defined in deployments/schemas.ts. */
export { int32 };

export const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Request bodies refuse fields they do not know. */
export const strict = { additionalProperties: false } as const;

export const ItemType = Type.Enum(contentTypes);

/** One workspace item named by type and id: moves, grants and permission lists. */
export const itemRef = { type: ItemType, id: Id };

/**
 * A list filter on a folder, where 0 means the workspace root (spec 4.5: `folderId`, minimum 0);
 * `rootIfZero` turns the value into what repositories take (null for the root).
 */
export const folderFilter = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: int32.maximum, description }));

export function rootIfZero(folderId: number | undefined): number | null | undefined {
  return folderId === 0 ? null : folderId;
}

/** Spec 2.4 and 9 (0.1.0): `items`/`pageInfo`, with the deprecated `data` and `count` still filled. */
export const listWithCount = <T extends TSchema>(item: T, countDescription: string) =>
  Type.Object({
    items: Type.Array(item),
    pageInfo: PageInfoSchema,
    data: Type.Array(item, { deprecated: true, description: 'Deprecated: use `items`' }),
    count: Type.Integer({ deprecated: true, description: countDescription }),
  });

export const ResourceOwner = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  picture: Type.Union([Type.String(), Type.Null()]),
});

export const FolderPathEntry = Type.Object({ id: Type.Integer(), name: Type.String() });

export const JsonObject = Type.Record(Type.String(), Type.Unknown());

export const itemName = Type.String({ minLength: 1, maxLength: 255 });

/** The owner columns a repository joins from `users as u` (left join: the owner may be gone). */
export const ownerColumns = [
  'u.email as owner_email',
  'u.first_name as owner_first_name',
  'u.picture as owner_picture',
] as const;

export interface OwnerColumns {
  owner_email: string | null;
  owner_first_name: string | null;
  owner_picture: string | null;
}

export function ownerView(userId: number | null, row: OwnerColumns) {
  if (userId === null || row.owner_email === null) return null;
  return { id: userId, email: row.owner_email, firstName: row.owner_first_name, picture: row.owner_picture };
}
