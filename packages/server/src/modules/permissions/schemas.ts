import { Type } from 'typebox';
import { contentLevels } from '../../db/schema.ts';
import { deploymentItemParams, Id } from '../deployments/schemas.ts';
import { ItemType, itemRef, strict } from '../workspace/common.ts';

export const Level = Type.Enum(contentLevels, {
  description: 'view < edit < manage; a folder grant reaches everything inside it',
});

export const PermissionsQuery = Type.Object(itemRef);

export const GrantBody = Type.Object(
  { ...itemRef, userId: Type.Optional(Id), groupId: Type.Optional(Id), level: Level },
  strict,
);

export const PermissionParams = deploymentItemParams('permissionId');

export const Permission = Type.Object({
  id: Type.Integer(),
  type: ItemType,
  objectId: Type.Integer(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  groupId: Type.Union([Type.Integer(), Type.Null()]),
  level: Level,
  createdAt: Type.String({ format: 'date-time' }),
});

export const PermissionsResponse = Type.Object({ items: Type.Array(Permission) });
