import type { AccountRole, CredentialKind } from '../db/schema.ts';

/** Who is calling: resolved once per request from the credential (auth/authenticate.ts). */
export interface Principal {
  tenantId: number;
  /** The account user; 0 for an embed token, whose end user is no account user (`embed.embedUserId`). */
  userId: number;
  role: AccountRole;
  /**
   * The API key's id; for an embed token the negated session id; for a browser session its row id
   * (rate limits count per kind and id).
   */
  credentialId: number;
  /**
   * `session`: a browser signed in with a password (modules/sign-in), acting as the user's unscoped key;
   * `oidc`: an external OpenID provider's access token (modules/oidc/external), likewise.
   */
  credentialKind: CredentialKind | 'embed' | 'session' | 'oidc';
  /** null: the credential may act on every deployment of the tenant (spec section 5 rule 1). */
  deploymentIds: number[] | null;
  /**
   * Deployments where a role assigned to the user (auth/roles.ts) gives more than `role`: on a
   * route of such a deployment, the request acts with that role (authenticate.ts `authorize`).
   */
  deploymentRoles?: Record<string, AccountRole>;
  /** Set for an embed token only (DESIGN.md "Identity and access"): what its session granted. */
  embed?: EmbedGrant;
  /** The request's `x-request-id` (http/app.ts), set by the auth hook: what audit entries name. */
  requestId?: string;
}

/**
 * What an embed token carries (spec 2.6: the embed context baked in when a session is redeemed),
 * as the routes that accept embed tokens read it (modules/embed/claims.ts writes it).
 */
export interface EmbedGrant {
  /** The session the token was minted from: revoking it revokes the token. */
  sessionId: number;
  deploymentId: number;
  embedUserId: number;
  externalId: string;
  embedTenantId: number | null;
  embedTenantName: string | null;
  creatorMode: boolean;
  /** Spec 4.3 `publicDashboardId`: the one dashboard the token may read, or null for any embeddable one. */
  publicDashboardId: string | null;
  /** The security context every query of the token runs under (spec 4.3 rules 1 and 2). */
  securityContext: Record<string, unknown>;
  /**
   * Spec 4.3 `settings.showDashboardChat`, resolved when the session was redeemed: the session's
   * own true or false, or (omitted) the account-wide embed setting, which is off until an admin
   * turns it on (modules/embed/session-service.ts redeem). Absent (a grant built by the server
   * itself, as for exports): no chat.
   */
  showDashboardChat?: boolean;
}

const rank: Record<AccountRole, number> = { viewer: 0, developer: 1, admin: 2 };

export function hasRole(principal: Principal, needed: AccountRole): boolean {
  return rank[principal.role] >= rank[needed];
}

export function canReachDeployment(principal: Principal, deploymentId: number): boolean {
  return principal.deploymentIds === null || principal.deploymentIds.includes(deploymentId);
}

/**
 * What an embed token may do on a route (DESIGN.md "Identity and access"): `read` the dashboards it
 * was issued for, `chat` when its session allows dashboard chat (spec 4.3
 * `settings.showDashboardChat`), `create` in its embed tenant's space when its session is in
 * creator mode (spec 4.3 rules 1 and 2). Routes without it answer every embed token 403.
 */
export const embedLevels = ['read', 'chat', 'create'] as const;
export type EmbedLevel = (typeof embedLevels)[number];

interface CredentialedAccess {
  /** The least account role that may call the route (embed tokens are judged by `embed` instead). */
  role: AccountRole;
  /**
   * Account-level routes refuse deployment-scoped keys (spec 5 rule 2: only unscoped keys grant
   * account-wide access) unless `filter`, where the service narrows results to the key's scope,
   * or `service`, where the deployment is named in the body or found from the target and the
   * service checks it against the key's scope (403 `deployment_out_of_scope`).
   */
  scopedKeys?: 'deny' | 'filter' | 'service';
  /**
   * The body field that names the deployment the route acts on, for routes whose path does not
   * (`POST /api/v1/agents`): the deployment checks a `:deploymentId` gets (the credential's scope,
   * a role held on that deployment, auth/roles.ts) are made against it once the body is parsed
   * and validated (authenticate.ts `authorizeBodyDeployment`).
   */
  deploymentInBody?: string;
  /** The route also takes `Authorization: Api-Key <key>` (spec 5: the chat API). */
  apiKeyScheme?: true;
  /** Embed tokens may call the route at this level; absent: embed tokens get 403. */
  embed?: EmbedLevel;
}

/** What a route requires; declared on every route as `config.access` and enforced in one place. */
export type Access =
  | { public: true }
  | (CredentialedAccess & {
      /**
       * Which kind of credential the route family takes (default `api`: API keys and browser
       * sessions; embed tokens too when `embed` is declared).
       */
      credential?: CredentialKind;
    })
  /** Embed tokens only, at the level given: API keys and sessions get 403. */
  | (CredentialedAccess & { credential: 'embed'; embed: EmbedLevel });
