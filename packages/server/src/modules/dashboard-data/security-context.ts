import type { SecurityContext } from '@tessera/semantic';
import type { Principal } from '../../auth/principal.ts';
import type { DashboardRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors/domain-errors.ts';
import type { GroupNames, UserLookup } from './ports.ts';
import { type AccountViewer, type EmbedViewer, embedViewer, type Viewer } from './viewer.ts';

/** The part of an account viewer its security context is made of. */
export interface ViewerIdentity {
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
export function viewerSecurityContext(viewer: ViewerIdentity): SecurityContext {
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
  /** Throws 404 or 403 unless the embed viewer may read the dashboard; answers its security context. */
  admit(viewer: EmbedViewer, dashboard: DashboardRow): Promise<SecurityContext>;
}

/**
 * Builds the `Viewer` of a request once, at the route (issue 22 item 0): an account user loaded
 * with email, global groups (`namesOfUser`) and attributes, or an embed token's embed user.
 */
export class ViewerResolver {
  constructor(
    private readonly deps: {
      users: UserLookup;
      groups: GroupNames;
      embed?: EmbedDashboardGate;
    },
    public userAttributes: UserAttributesSource = noUserAttributes,
  ) {}

  /** The viewer a request's credential stands for: its embed user for an embed token, else its account user. */
  async of(principal: Principal): Promise<Viewer> {
    if (principal.embed) return embedViewer(principal.tenantId, principal.embed);
    return this.user(principal.tenantId, principal.userId, principal.role);
  }

  /**
   * An account user as a viewer. `role` is the one content access is capped by: a request's
   * (which a deployment role may raise), or, without a request, the user's own.
   */
  async user(tenantId: number, userId: number, role?: AccountViewer['role']): Promise<AccountViewer> {
    const user = await this.deps.users.find(tenantId, userId);
    if (!user) throw new NotFoundError(`User ${userId}`, 'user_not_found');
    const [groups, userAttributes] = await Promise.all([
      this.deps.groups.namesOfUser(userId),
      this.userAttributes(tenantId, userId),
    ]);
    const identity = { id: user.id, email: user.email, groups, userAttributes };
    return {
      kind: 'user',
      tenantId,
      userId: user.id,
      role: role ?? user.role,
      email: user.email,
      groups,
      userAttributes,
      securityContext: viewerSecurityContext(identity),
    };
  }

  /**
   * The security context `viewer` reads `dashboard` under: an embed viewer's own once the embed
   * gate admits it; otherwise the user's, once `requireContentAccess` (view on the workbook) passes.
   */
  async forDashboard(
    viewer: Viewer,
    dashboard: DashboardRow,
    requireContentAccess: () => void,
  ): Promise<SecurityContext> {
    if (viewer.kind === 'embed') {
      if (!this.deps.embed)
        throw new NotFoundError(`Dashboard ${dashboard.public_id}`, 'dashboard_not_found');
      return this.deps.embed.admit(viewer, dashboard);
    }
    requireContentAccess();
    return viewer.securityContext;
  }

  async securityContext(tenantId: number, userId: number): Promise<SecurityContext> {
    return (await this.user(tenantId, userId)).securityContext;
  }
}
