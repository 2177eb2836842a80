import { Type } from 'typebox';
import { userAttributeTypes } from '../../db/schema.ts';
import { CursorQuery, OffsetQuery, PageInfoSchema } from '../../pagination/page.ts';
import { nullable, strict } from '../workspace/common.ts';

/** Shapes of the reference's groups User Attributes and User Attribute Values (issue 22 item 3). */

const text = (maxLength: number, description?: string) =>
  Type.Optional(nullable(Type.String({ maxLength, description })));

export const UserAttributeTypeSchema = Type.Enum(userAttributeTypes);

/** What `serviceCloud.userAttributes.<name>` and an access policy's `userAttributes.<name>` name. */
export const UserAttributeName = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    'A letter or `_`, then letters, digits or `_` (checked by the service, to say so in words): the key under `serviceCloud.userAttributes`',
});

/** What `UserAttributeName` must look like: an identifier an access policy can name. */
export const userAttributeNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

const defaultValue = text(
  1000,
  'The value of every user without one of their own, as text: kept as is for `string`, JSON for the other types (`42`, `true`, `["a","b"]`)',
);

export const UserAttribute = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: UserAttributeTypeSchema,
  defaultValue: nullable(Type.String()),
  description: nullable(Type.String()),
  displayName: nullable(Type.String()),
});

export const UserAttributeCreateInput = Type.Object(
  {
    name: UserAttributeName,
    type: UserAttributeTypeSchema,
    defaultValue,
    description: text(1000),
    displayName: text(255),
  },
  strict,
);

/** The name and type stay as created: policies and stored values depend on them. */
export const UserAttributeUpdateInput = Type.Object(
  { defaultValue, description: text(1000), displayName: text(255) },
  strict,
);

export const UserAttributeIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

export const UserAttributesListQuery = Type.Object({
  ...OffsetQuery,
  ...CursorQuery,
  name: Type.Optional(
    Type.String({ maxLength: 100, description: 'Only attributes whose name contains this text' }),
  ),
  type: Type.Optional(UserAttributeTypeSchema),
});

export const UserAttributesListResponse = Type.Object({
  items: Type.Array(UserAttribute),
  data: Type.Array(UserAttribute, {
    deprecated: true,
    description: 'Deprecated: use `items` instead. Kept for backward compatibility.',
  }),
  count: Type.Integer({
    minimum: 0,
    deprecated: true,
    description: 'Deprecated: total number of user attributes, ignoring pagination.',
  }),
  pageInfo: nullable(PageInfoSchema),
});

const idText = (description: string) =>
  Type.Union(
    [
      Type.String({ minLength: 1, maxLength: 10, pattern: '^[1-9][0-9]{0,9}$' }),
      Type.Integer({ minimum: 1, maximum: 2147483647 }),
    ],
    {
      description,
    },
  );

/** Bounded like an embed session's attribute values (modules/embed/schemas.ts). */
export const AttributeValue = Type.Union([
  Type.String({ maxLength: 1000 }),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }),
  Type.Array(Type.Number(), { maxItems: 1000 }),
  Type.Null(),
]);

export const UserAttributeValueCreateInput = Type.Object(
  {
    userId: idText('The account user'),
    userAttributeId: idText('The user attribute'),
    value: Type.Optional({
      ...AttributeValue,
      description:
        "A value of the attribute's type; null (or omitted) removes the user's own value, so the default applies",
    }),
  },
  strict,
);

export const UserAttributeValue = Type.Object({
  userId: Type.Integer(),
  userAttributeId: Type.Integer(),
  name: Type.String(),
  type: UserAttributeTypeSchema,
  displayName: nullable(Type.String()),
  description: nullable(Type.String()),
  value: Type.Unknown({ description: "The user's own value; null when they have none" }),
  formattedValue: Type.Unknown({
    description:
      'The value their security context carries (their own, else the default) as text; null when neither',
  }),
});

export const UserIdParams = Type.Object({ userId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
