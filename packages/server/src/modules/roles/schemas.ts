import { Type } from 'typebox';
import { policyActions, policyResourceTypes } from '../../auth/roles.ts';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';

const id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const RoleIdParams = Type.Object({ roleId: id });
export const RoleUserParams = Type.Object({ roleId: id, userId: id });
export const RoleGroupParams = Type.Object({ roleId: id, groupId: id });

/** The reference's Policy. */
export const PolicySchema = Type.Object(
  {
    resourceType: Type.Enum(policyResourceTypes),
    actions: Type.Array(Type.Enum(policyActions), { minItems: 1, maxItems: policyActions.length }),
    resources: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 1000,
      description: 'Deployment ids as strings for a `Deployment` policy, or `["All"]`',
    }),
  },
  { additionalProperties: false },
);

const roleName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^\\S(.*\\S)?$',
  description: 'Unique role name; the built-in role names are refused',
});
const description = Type.Union([Type.String({ maxLength: 255 }), Type.Null()]);
const policies = Type.Array(PolicySchema, { maxItems: 200 });

export const RoleCreateBody = Type.Object(
  { name: roleName, description: Type.Optional(description), policies },
  { additionalProperties: false },
);
export const RoleUpdateBody = Type.Object(
  {
    name: Type.Optional(roleName),
    description: Type.Optional(description),
    policies: Type.Optional(policies),
  },
  { additionalProperties: false },
);

export const Role = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  policies: Type.Array(PolicySchema),
  builtIn: Type.Boolean({ description: 'A built-in role (Admin, Developer, Viewer): read-only' }),
});

export const RolesListQuery = Type.Object({ ...CursorQuery });
export const RolesListResponse = Type.Object({ items: Type.Array(Role), pageInfo: PageInfoSchema });
