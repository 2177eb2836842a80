import type { SecurityContext } from '@tessera/semantic';
import type { Principal } from '../../auth/principal.ts';
import type { DashboardRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors/domain-errors.ts';
import type { GroupNames, UserLookup } from './ports.ts';

/** Who is looking at a dashboard: a Tessera user, or later an embed subject or a notification recipient. */
export interface Viewer {
  id: number;
  email: string;
  /** Global group names (DESIGN.md "Identity and access"): what `access_policy` `group:` matches. */
  groups: string[];
  userAttributes?: Record<string, unknown>;
}

/**
 * The one shape of a viewer's security context (DESIGN.md "Semantic layer and data API": the
 * data-API token payload). Dashboard data, embedding and notifications all build it here, so that
 * `access_policy` rules see the same `serviceCloud.groups` / `serviceCloud.userAttributes` whatever
 * the entry point.
 */
export function viewerSecurityContext(viewer: Viewer): SecurityContext {
  const attributes = viewer.userAttributes ?? {};
  return {
    serviceCloud: {
      groups: [...viewer.groups],
      ...(Object.keys(attributes).length > 0 ? { userAttributes: { ...attributes } } : {}),
    },
    user: { id: viewer.id, email: viewer.email },
  };
}

/**
 * Where user-attribute values come from: modules/user-attributes (the reference's
 * `/api/v1/user-attribute-values`), plugged in by the composition root; the default has none.
 */
export type UserAttributesSource = (tenantId: number, userId: number) => Promise<Record<string, unknown>>;

export const noUserAttributes: UserAttributesSource = async () => ({});

/**
 * Embed tokens (modules/embed): the embed module decides which dashboards a token reads, and the
 * security context is the one its session baked in (spec 2.6), not a Tessera user's.
 */
export interface EmbedDashboardGate {
  /** Throws 404 or 403 unless the embed principal may read the dashboard; answers its security context. */
  admit(principal: Principal, dashboard: DashboardRow): Promise<SecurityContext>;
}

/** Loads a Tessera user as a Viewer: email, global groups (`namesOfUser`) and attributes. */
export class ViewerResolver {
  constructor(
    private readonly deps: {
      users: UserLookup;
      groups: GroupNames;
      embed?: EmbedDashboardGate;
    },
    public userAttributes: UserAttributesSource = noUserAttributes,
  ) {}

  /**
   * The security context `principal` reads `dashboard` under: an embed token's own once the embed
   * gate admits it; otherwise the user's, once `requireContentAccess` (view on the workbook) passes.
   */
  async forDashboard(
    principal: Principal,
    dashboard: DashboardRow,
    requireContentAccess: () => void,
  ): Promise<SecurityContext> {
    if (principal.embed) {
      if (!this.deps.embed)
        throw new NotFoundError(`Dashboard ${dashboard.public_id}`, 'dashboard_not_found');
      return this.deps.embed.admit(principal, dashboard);
    }
    requireContentAccess();
    return this.securityContext(principal.tenantId, principal.userId);
  }

  async viewer(tenantId: number, userId: number): Promise<Viewer> {
    const user = await this.deps.users.find(tenantId, userId);
    if (!user) throw new NotFoundError(`User ${userId}`, 'user_not_found');
    const [groups, userAttributes] = await Promise.all([
      this.deps.groups.namesOfUser(userId),
      this.userAttributes(tenantId, userId),
    ]);
    return { id: user.id, email: user.email, groups, userAttributes };
  }

  async securityContext(tenantId: number, userId: number): Promise<SecurityContext> {
    return viewerSecurityContext(await this.viewer(tenantId, userId));
  }
}
