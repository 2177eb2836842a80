import { Type } from 'typebox';
import { contentLevels } from '../../db/schema.ts';
import { ItemType, int32 } from '../workspace/common.ts';

export const Level = Type.Enum(contentLevels, {
  description: 'view < edit < manage; a folder grant reaches everything inside it',
});

export const PermissionsQuery = Type.Object({ type: ItemType, id: Type.Integer(int32) });

export const GrantBody = Type.Object(
  {
    type: ItemType,
    id: Type.Integer(int32),
    userId: Type.Optional(Type.Integer(int32)),
    groupId: Type.Optional(Type.Integer(int32)),
    level: Level,
  },
  { additionalProperties: false },
);

export const PermissionParams = Type.Object({
  deploymentId: Type.Integer(int32),
  permissionId: Type.Integer(int32),
});

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
