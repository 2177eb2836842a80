import { type TSchema, Type } from 'typebox';
import { accountRoles } from '../../db/schema.ts';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { passwordMaxLength, passwordMinLength } from '../sign-in/passwords.ts';

export const UserIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

const optionalText = (max: number) =>
  Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));

const nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const password = Type.String({
  minLength: passwordMinLength,
  maxLength: passwordMaxLength,
  description: `At least ${passwordMinLength} characters; the user signs in with it`,
});

/** The reference's SheetsUserSettingsInput. */
export const SheetsUserSettingsInput = Type.Object(
  {
    autoRunQueryOnChange: nullable(Type.Boolean()),
    openExplorationFromSheet: nullable(Type.Boolean()),
    revealSheetOnOpen: nullable(Type.Boolean()),
    showAppliedFilters: nullable(Type.Boolean()),
    suppressDuplicateValues: nullable(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** The reference's UserSettingsInput: a user's own preferences. */
export const UserSettingsInput = Type.Object(
  {
    alternatingRowColors: nullable(Type.Boolean()),
    defaultDeploymentId: nullable(Type.Integer({ minimum: 1, maximum: 2147483647 })),
    lastSeenChangelogId: nullable(
      Type.Integer({ description: 'Deprecated and ignored: accepted, never stored', deprecated: true }),
    ),
    locale: nullable(
      Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$' }),
    ),
    sheets: nullable(SheetsUserSettingsInput),
    theme: nullable(Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9_-]+$' })),
    timezone: nullable(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+/-]+$' })),
  },
  { additionalProperties: false },
);

/** An address mail can reach, as notifications need: the service refuses one without a dot in its domain. */
const deliverableEmail = Type.String({
  format: 'email',
  maxLength: 320,
  description: 'An address mail can reach (its domain has a dot: not `admin@localhost`)',
});

/** A user's own profile: their names and the address notifications reach them at. */
export const MyProfileBody = Type.Object(
  {
    email: Type.Optional(deliverableEmail),
    firstName: optionalText(200),
    lastName: optionalText(200),
  },
  { additionalProperties: false },
);

export const bulkActions = ['DEACTIVATE', 'ACTIVATE', 'DELETE'] as const;
export const BulkUserActionInput = Type.Object(
  {
    action: Type.Enum(bulkActions),
    userIds: Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);
export const BulkUserActionPayload = Type.Object({
  action: Type.Enum(bulkActions),
  succeeded: Type.Array(Type.Integer()),
  failed: Type.Array(
    Type.Object({
      userId: Type.Integer(),
      error: Type.Object({ status: Type.Integer(), message: Type.String() }),
    }),
  ),
});

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
    password: Type.Optional(Type.Union([password, Type.Null()])),
    settings: Type.Optional(Type.Union([UserSettingsInput, Type.Null()])),
  },
  { additionalProperties: false },
);

export const UpdateUserBody = Type.Object(
  {
    email: Type.Optional(deliverableEmail),
    password: Type.Optional(Type.Union([password, Type.Null()])),
    settings: Type.Optional(Type.Union([UserSettingsInput, Type.Null()])),
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
  settings: Type.Object({}, { additionalProperties: true, description: "The reference's UserSettingsInput" }),
  roles: Type.Optional(
    Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), {
      description: 'The roles assigned to the user (PUT /api/v1/roles/{roleId}/users/{userId})',
    }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const UsersListQuery = Type.Object({ ...CursorQuery });
export const UsersListResponse = Type.Object({ items: Type.Array(User), pageInfo: PageInfoSchema });
