import { Type } from 'typebox';
import { contentLevels } from '../../db/schema.ts';
import { deploymentItemParams, Id, int32 } from '../deployments/schemas.ts';
import { ItemType, itemRef, strict } from '../workspace/common.ts';

export const Level = Type.Enum(contentLevels, {
  description: 'view < edit < manage; a folder grant reaches everything inside it',
});

export const PermissionsQuery = Type.Object(itemRef);

export const GrantBody = Type.Object(
  {
    ...itemRef,
    userId: Type.Optional(Id),
    groupId: Type.Optional(Id),
    embedGroupId: Type.Optional(
      Type.Integer({
        ...int32,
        description:
          "An embed tenant group (spec 4.3 rule 2), only on content of that tenant's creator-mode space; " +
          'the only grantee an embed token in creator mode may name',
      }),
    ),
    level: Level,
  },
  strict,
);

export const PermissionParams = deploymentItemParams('permissionId');

export const Permission = Type.Object({
  id: Type.Integer(),
  type: ItemType,
  objectId: Type.Integer(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  groupId: Type.Union([Type.Integer(), Type.Null()]),
  embedUserId: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The owning embed user (creator mode)',
  }),
  embedGroupId: Type.Union([Type.Integer(), Type.Null()], { description: 'An embed tenant group' }),
  level: Level,
  createdAt: Type.String({ format: 'date-time' }),
});

export const PermissionsResponse = Type.Object({ items: Type.Array(Permission) });
