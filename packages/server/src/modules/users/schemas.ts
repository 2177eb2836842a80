import { Type } from 'typebox';
import { accountRoles } from '../../db/schema.ts';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';

export const UserIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

const optionalText = (max: number) =>
  Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));

/** Follows the reference's UserCreateInput; `role` extends `isAdmin` with the developer and viewer roles. */
export const CreateUserBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    username: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    firstName: optionalText(200),
    lastName: optionalText(200),
    picture: optionalText(2048),
    externalId: optionalText(256),
    isAdmin: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    role: Type.Optional(
      Type.Enum(accountRoles, { description: 'Account role; default viewer (admin when isAdmin)' }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateUserBody = Type.Object(
  {
    firstName: optionalText(200),
    lastName: optionalText(200),
    picture: optionalText(2048),
    isAdmin: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    role: Type.Optional(Type.Enum(accountRoles)),
    isDeactivated: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: false },
);

export const User = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  username: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  picture: Type.Union([Type.String(), Type.Null()]),
  externalId: Type.Union([Type.String(), Type.Null()]),
  isAdmin: Type.Boolean(),
  role: Type.Enum(accountRoles),
  isDeactivated: Type.Boolean(),
  notifications: Type.Object({}, { additionalProperties: true }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const UsersListQuery = Type.Object({ ...CursorQuery });
export const UsersListResponse = Type.Object({ items: Type.Array(User), pageInfo: PageInfoSchema });
