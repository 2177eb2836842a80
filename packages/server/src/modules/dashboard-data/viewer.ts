import type { SecurityContext } from '@tessera/semantic';
import type { EmbedGrant } from '../../auth/principal.ts';
import type { AccountRole } from '../../db/schema.ts';

/**
 * Who reads data (issue 22 item 0): an account user, or an embed user with the security context
 * its session baked in. Built once per request from the `Principal` at the route
 * (`ViewerResolver.of`), or by the notification scheduler from a notification's subject, and
 * passed to dashboard data, chat and the renderer. It is also what the content checks judge
 * (permissions/access.ts `AccessSubject`): a viewer needs no credential to be built.
 */
export type Viewer = AccountViewer | EmbedViewer;

interface ViewerBase {
  tenantId: number;
  /** The account user; 0 for an embed user, who is no account user (`embed.embedUserId`). */
  userId: number;
  /** The role content access is capped by (an embed user's is `viewer`, as its token's). */
  role: AccountRole;
  /** What every query of this viewer runs under (`serviceCloud.groups`, `serviceCloud.userAttributes`). */
  securityContext: SecurityContext;
}

export interface AccountViewer extends ViewerBase {
  kind: 'user';
  email: string;
  /** Global group names: what `access_policy` `group:` matches. */
  groups: string[];
  userAttributes: Record<string, unknown>;
  embed?: undefined;
}

/** What an embed viewer was granted (spec 4.3): its embed user, and which dashboards it reads. */
export type EmbedViewerGrant = Pick<
  EmbedGrant,
  | 'deploymentId'
  | 'embedUserId'
  | 'externalId'
  | 'embedTenantId'
  | 'embedTenantName'
  | 'creatorMode'
  | 'publicDashboardId'
  | 'securityContext'
>;

export interface EmbedViewer extends ViewerBase {
  kind: 'embed';
  embed: EmbedViewerGrant;
}

/** An embed user as a viewer: the grant's security context is the one its queries run under. */
export function embedViewer(tenantId: number, embed: EmbedViewerGrant): EmbedViewer {
  return {
    kind: 'embed',
    tenantId,
    userId: 0,
    role: 'viewer',
    embed,
    securityContext: embed.securityContext,
  };
}
