import { Type } from 'typebox';
import { userAttributeTypes } from '../../db/schema.ts';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { Id } from '../deployments/schemas.ts';
import { EmbedTenantName } from '../embed-tenants/schemas.ts';
import { JsonObject, nullable, strict } from '../workspace/common.ts';

/** Shapes of the reference's Embed group (GenerateSession and friends), spec 2.6 and 4.3. */

const text = (maxLength = 1000) => Type.Optional(nullable(Type.String({ maxLength })));
const names = (description: string) =>
  Type.Optional(
    nullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200, description })),
  );

export const GroupDefinition = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }), description: text(500) },
  strict,
);

export const UserAttributeDefinition = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    type: Type.Optional(Type.Enum(userAttributeTypes, { description: 'Default `string`' })),
    defaultValue: text(),
    description: text(),
    displayName: text(255),
  },
  strict,
);

export const UserAttributeValue = Type.Union([
  Type.String({ maxLength: 1000 }),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 }),
  Type.Array(Type.Number(), { maxItems: 1000 }),
  Type.Null(),
]);

export const UserAttributeInput = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }), value: Type.Optional(UserAttributeValue) },
  strict,
);

export const EmbedTheme = Type.Object(
  {
    analyticsChat: Type.Optional(
      nullable(
        Type.Object(
          {
            backgroundColor: text(100),
            chatInput: Type.Optional(
              nullable(Type.Object({ backgroundColor: text(100), borderColor: text(100) }, strict)),
            ),
          },
          strict,
        ),
      ),
    ),
    chat: Type.Optional(nullable(Type.Object({ inputColor: text(100) }, strict))),
    font: text(200),
    primaryColor: text(100),
  },
  strict,
);

export const EmbedUserProfile = Type.Object({ displayName: text(255), picture: text(2048) }, strict);

export const EmbedSessionSettings = Type.Object(
  {
    showDashboardChat: Type.Optional(
      nullable(
        Type.Boolean({
          description:
            'Tri-state: omitted or null inherits the account-wide setting (`GET /api/v1/embed/settings`); true or false forces it for this session',
        }),
      ),
    ),
  },
  strict,
);

/** Spec 4.3 body (the reference's GenerateSession). */
export const GenerateSessionBody = Type.Object(
  {
    deploymentId: Id,
    creatorMode: Type.Optional(nullable(Type.Boolean())),
    email: text(320),
    embedTenantName: Type.Optional(nullable(EmbedTenantName)),
    embedTenantProfile: Type.Optional(nullable(Type.Object({ displayName: text(255) }, strict))),
    embedTheme: Type.Optional(nullable(EmbedTheme)),
    externalId: text(255),
    internalId: text(255),
    groups: names('Global groups, placed verbatim at `serviceCloud.groups`; each must exist'),
    tenantGroups: names(
      'Groups of the embed tenant, placed at `serviceCloud.groups` as `system:tenant:{embedTenantName}:group:{group}`',
    ),
    tenantGroupDefinitions: Type.Optional(nullable(Type.Array(GroupDefinition, { maxItems: 200 }))),
    groupDefinitions: Type.Optional(
      nullable(Type.Array(GroupDefinition, { maxItems: 200, deprecated: true, description: 'Ignored' })),
    ),
    isEphemeral: Type.Optional(nullable(Type.Boolean())),
    publicDashboardId: text(64),
    roles: names('Carried in the token as given'),
    securityContext: Type.Optional(nullable(JsonObject)),
    settings: Type.Optional(nullable(EmbedSessionSettings)),
    userAttributeDefinitions: Type.Optional(nullable(Type.Array(UserAttributeDefinition, { maxItems: 200 }))),
    userAttributes: Type.Optional(nullable(Type.Array(UserAttributeInput, { maxItems: 200 }))),
    userProfile: Type.Optional(nullable(EmbedUserProfile)),
  },
  strict,
);

export const GenerateSessionResponse = Type.Object({ sessionId: Type.String() });

/** The session id as generate-session returns it: 16 random bytes in hex (the reference's revoke pattern). */
export const SessionId = Type.String({ pattern: '^[0-9a-f]{32}$' });
export const SessionTokenBody = Type.Object({ sessionId: Type.String({ maxLength: 200 }) }, strict);
export const SessionTokenResponse = Type.Object({ token: Type.String() });
export const RevokeSessionBody = Type.Object({ sessionId: SessionId }, strict);

export const PublicIdParams = Type.Object({ publicId: Type.String({ minLength: 1, maxLength: 64 }) });

export const UpdateDashboardEmbeddingBody = Type.Object({ allowEmbed: Type.Boolean() }, strict);
export const DashboardEmbeddingResponse = Type.Object({
  publicId: Type.String(),
  allowEmbed: Type.Boolean(),
});

export const EmbeddableDashboard = Type.Object({
  id: Type.Integer(),
  publicId: Type.String(),
  deploymentId: Type.Integer(),
  workbookId: Type.Integer(),
  allowEmbed: Type.Boolean(),
  title: nullable(Type.String()),
  description: nullable(Type.String()),
  versionNumber: Type.Integer(),
});
export const EmbeddableDashboardsQuery = Type.Object({
  ...CursorQuery,
  deploymentId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
});
export const EmbeddableDashboardsResponse = Type.Object({
  items: Type.Array(EmbeddableDashboard),
  pageInfo: PageInfoSchema,
});

/** A CSP source expression for `frame-ancestors` (CSP Level 3 section 7.7.1): a scheme, a host or 'self'. */
const frameAncestor = Type.String({
  maxLength: 255,
  pattern: "^('self'|https?://(\\*\\.)?[A-Za-z0-9.-]+(:(\\d{1,5}|\\*))?|https?:)$",
  description:
    "`'self'`, a scheme (`https:`) or an origin such as `https://app.example.com` or `https://*.example.com:8443`",
});

export const EmbedSettings = Type.Object({
  enabled: Type.Boolean({ description: 'Spec 4.3 rule 4: when false, generate-session answers 403' }),
  frameAncestors: Type.Array(Type.String(), {
    description:
      'Origins allowed to frame the embed pages, sent as `Content-Security-Policy: frame-ancestors`',
  }),
  showDashboardChat: Type.Boolean({
    description: 'What a session without `settings.showDashboardChat` gets',
  }),
});
export const UpdateEmbedSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    frameAncestors: Type.Optional(Type.Array(frameAncestor, { maxItems: 50 })),
    showDashboardChat: Type.Optional(Type.Boolean()),
  },
  strict,
);
