import { Type } from 'typebox';
import { contentTypes } from '../permissions/repository.ts';

/** Schema pieces shared by folders, workbooks, reports and the workspace (spec section 2.1). */
export const int32 = { minimum: 1, maximum: 2147483647 } as const;
export const DeploymentParams = Type.Object({ deploymentId: Type.Integer(int32) });

export const ItemType = Type.Enum(contentTypes);

export const ResourceOwner = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  picture: Type.Union([Type.String(), Type.Null()]),
});

export const FolderPathEntry = Type.Object({ id: Type.Integer(), name: Type.String() });

export const JsonObject = Type.Record(Type.String(), Type.Unknown());

export const itemName = Type.String({ minLength: 1, maxLength: 255 });

/** The owner columns a repository joins from `users` (left join: the owner may be gone). */
export interface OwnerColumns {
  owner_email: string | null;
  owner_first_name: string | null;
  owner_picture: string | null;
}

export function ownerView(userId: number | null, row: OwnerColumns) {
  if (userId === null || row.owner_email === null) return null;
  return { id: userId, email: row.owner_email, firstName: row.owner_first_name, picture: row.owner_picture };
}
