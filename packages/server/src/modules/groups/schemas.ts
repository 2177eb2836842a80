import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';

export const GroupIdParams = Type.Object({ groupId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export const GroupMemberParams = Type.Object({
  groupId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  userId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
});

const groupName = Type.String({ minLength: 1, maxLength: 200, pattern: '^\\S(.*\\S)?$' });

export const CreateGroupBody = Type.Object(
  {
    name: groupName,
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export const UpdateGroupBody = Type.Object(
  {
    name: Type.Optional(groupName),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export const AddMemberBody = Type.Object(
  { userId: Type.Integer({ minimum: 1, maximum: 2147483647 }) },
  { additionalProperties: false },
);

/** The reference's UserGroupDTO. */
export const Group = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  userCount: Type.Integer(),
});

export const GroupsListQuery = Type.Object({ ...CursorQuery });
export const GroupsListResponse = Type.Object({ items: Type.Array(Group), pageInfo: PageInfoSchema });
export const GroupMembersResponse = Type.Object({
  items: Type.Array(Type.Object({ userId: Type.Integer() })),
});
