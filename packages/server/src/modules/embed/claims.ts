import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { EmbedGrant } from '../../auth/principal.ts';

/**
 * What a session stores and the token minted from it carries (spec 2.6: deployment, end-user
 * identity, groups, user attributes, security context). The embed page reads the display parts
 * (profile, theme, settings) from the token; the server reads the grant (auth/principal.ts).
 */
const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableInt = Type.Union([Type.Integer(), Type.Null()]);

export const SessionContext = Type.Object({
  externalId: Type.String(),
  embedTenantId: nullableInt,
  embedTenantName: nullableString,
  creatorMode: Type.Boolean(),
  publicDashboardId: nullableString,
  securityContext: Type.Record(Type.String(), Type.Unknown()),
  email: nullableString,
  internalId: nullableString,
  roles: Type.Array(Type.String()),
  isEphemeral: Type.Boolean(),
  userProfile: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  embedTenantProfile: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  theme: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  /** Null: inherit the account-wide setting when the session is redeemed (spec 4.3 `settings`). */
  settings: Type.Object({ showDashboardChat: Type.Union([Type.Boolean(), Type.Null()]) }),
});
export type SessionContext = Static<typeof SessionContext>;

/** The `embed` claim of a token: the session's context with its ids and the settings resolved. */
const EmbedClaim = Type.Object({
  ...SessionContext.properties,
  tenantId: Type.Integer(),
  deploymentId: Type.Integer(),
  sessionId: Type.Integer(),
  embedUserId: Type.Integer(),
  settings: Type.Object({ showDashboardChat: Type.Boolean() }),
});
export type EmbedClaim = Static<typeof EmbedClaim>;

export const embedIssuer = 'tessera';
export const embedAudience = 'tessera-embed';

/** The grant of a verified payload, or undefined when the payload is not an embed token's. */
export function grantOf(payload: Record<string, unknown>): (EmbedGrant & { tenantId: number }) | undefined {
  const claim = payload.embed;
  if (!Value.Check(EmbedClaim, claim)) return undefined;
  return {
    tenantId: claim.tenantId,
    sessionId: claim.sessionId,
    deploymentId: claim.deploymentId,
    embedUserId: claim.embedUserId,
    externalId: claim.externalId,
    embedTenantId: claim.embedTenantId,
    embedTenantName: claim.embedTenantName,
    creatorMode: claim.creatorMode,
    publicDashboardId: claim.publicDashboardId,
    securityContext: claim.securityContext,
    showDashboardChat: claim.settings.showDashboardChat,
  };
}
