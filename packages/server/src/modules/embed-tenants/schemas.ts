import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { deploymentItemParams, Id } from '../deployments/schemas.ts';
import { Workbook } from '../workbooks/schemas.ts';
import { nullable, strict } from '../workspace/common.ts';

/** Shapes of the reference's Embed Tenants and Dashboard Embed Access groups. */

/** Spec 4.3 rule 5 and section 8: the embed tenant name, in its canonical (lowercase) form. */
export const embedTenantNamePattern = '^[a-z][a-z0-9-]{0,34}[a-z0-9]$';
export const EmbedTenantName = Type.String({ pattern: embedTenantNamePattern, maxLength: 36 });

/**
 * The name in a path: any case, lowercased by the service (the reference: "a name that differs
 * only in case" reaches the same tenant), except on delete, which takes the canonical form only.
 */
const anyCaseName = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9-]{0,34}[A-Za-z0-9]$', maxLength: 36 });
export const EmbedTenantParams = Type.Object({ embedTenantName: anyCaseName });
export const CanonicalEmbedTenantParams = Type.Object({ embedTenantName: EmbedTenantName });
export const EmbedGroupParams = Type.Object({ embedTenantName: anyCaseName, id: Id });
export const DeploymentEmbedTenantParams = Type.Object({ deploymentId: Id, embedTenantName: anyCaseName });
export const WorkbookParams = deploymentItemParams('workbookId');

const timestamp = nullable(Type.String({ format: 'date-time' }));

export const EmbedTenant = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  displayName: nullable(Type.String()),
  userCount: Type.Integer(),
  createdAt: timestamp,
});
export const EmbedTenantsQuery = Type.Object({
  ...CursorQuery,
  search: Type.Optional(
    Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name' }),
  ),
});
export const EmbedTenantsResponse = Type.Object({ items: Type.Array(EmbedTenant), pageInfo: PageInfoSchema });
export const CreateEmbedTenantBody = Type.Object(
  { name: EmbedTenantName, displayName: Type.Optional(nullable(Type.String({ maxLength: 255 }))) },
  strict,
);

/** The reference's UserGroupDTO. */
export const EmbedGroup = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: nullable(Type.String()),
  userCount: nullable(Type.Integer()),
});
export const EmbedGroupsResponse = Type.Object({ items: Type.Array(EmbedGroup), pageInfo: PageInfoSchema });
export const CreateEmbedGroupBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Unique in the tenant; `system:` is reserved',
    }),
    description: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
  },
  strict,
);
export const UpdateEmbedGroupBody = Type.Object(
  {
    description: Type.Optional(
      nullable(Type.String({ maxLength: 500, description: 'An empty string clears it; omit to keep it' })),
    ),
  },
  strict,
);

/** The reference's EmbedUser. */
export const EmbedUser = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: nullable(Type.String()),
  externalId: nullable(Type.String()),
  firstName: nullable(Type.String()),
  createdAt: timestamp,
  lastLogin: timestamp,
});
export const EmbedUsersResponse = Type.Object({ items: Type.Array(EmbedUser), pageInfo: PageInfoSchema });
export const EmbedUsersQuery = Type.Object({
  ...CursorQuery,
  search: Type.Optional(
    Type.String({ maxLength: 320, description: 'Case-insensitive substring of the email or external id' }),
  ),
});

export const EmbedGroupMember = Type.Object(
  {
    embedUserId: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 2147483647 }))),
    externalId: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  },
  strict,
);
export const EmbedGroupMembersBody = Type.Object(
  { members: Type.Array(EmbedGroupMember, { minItems: 1, maxItems: 1000 }) },
  strict,
);
export const EmbedGroupMembersMutation = Type.Object({
  addedMembers: Type.Array(EmbedUser),
  unchangedMembers: Type.Array(EmbedUser),
});

export const ProvisionEmbedUserBody = Type.Object(
  {
    externalId: Type.String({ minLength: 1, maxLength: 255 }),
    email: Type.Optional(nullable(Type.String({ format: 'email', maxLength: 320 }))),
    groups: Type.Optional(
      nullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 })),
    ),
    tenantGroups: Type.Optional(
      nullable(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200 })),
    ),
    userProfile: Type.Optional(
      nullable(
        Type.Object(
          {
            displayName: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
            picture: Type.Optional(nullable(Type.String({ maxLength: 2048 }))),
          },
          strict,
        ),
      ),
    ),
  },
  strict,
);
export const ProvisionEmbedUsersBody = Type.Object(
  { users: Type.Array(ProvisionEmbedUserBody, { minItems: 1, maxItems: 100 }) },
  strict,
);
export const ProvisionEmbedUsersResponse = Type.Object({
  succeeded: Type.Array(EmbedUser),
  failed: Type.Array(
    Type.Object({
      externalId: Type.String(),
      error: Type.Object({ status: Type.Integer(), message: Type.String() }),
    }),
  ),
});

/* Dashboard Embed Access. */

export const embedAccessActions = ['read', 'none'] as const;
export const EmbedAccessResponse = Type.Object({
  allowEmbed: Type.Boolean(),
  allEmbedUsers: Type.Object({
    enabled: Type.Boolean(),
    action: Type.Enum(embedAccessActions),
    groupId: nullable(Type.Integer()),
  }),
  tenants: Type.Array(
    Type.Object({
      embedTenantName: Type.String(),
      groupId: Type.Integer({ description: "Tessera keeps no sharing groups: the embed tenant's id" }),
      action: Type.Enum(embedAccessActions),
    }),
  ),
});
export const UpdateEmbedAccessBody = Type.Object(
  {
    embedTenantName: Type.Optional(nullable(anyCaseName)),
    allEmbedUsers: Type.Optional(nullable(Type.Boolean())),
    action: Type.Optional(nullable(Type.Enum(embedAccessActions))),
    allowEmbed: Type.Optional(nullable(Type.Boolean())),
  },
  strict,
);

export const accessSources = ['tenant', 'allEmbedUsers', 'folder'] as const;
export type AccessSource = (typeof accessSources)[number];
export const EmbedTenantWorkbooksQuery = Type.Object({
  ...CursorQuery,
  accessSource: Type.Optional(Type.Enum(accessSources)),
});
export const EmbedTenantWorkbooksResponse = Type.Object({
  items: Type.Array(Workbook),
  pageInfo: PageInfoSchema,
});
