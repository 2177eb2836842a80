import type { AccountRole, CredentialKind } from '../db/schema.ts';

/** Who is calling: resolved once per request from the credential (auth/authenticate.ts). */
export interface Principal {
  tenantId: number;
  userId: number;
  role: AccountRole;
  credentialId: number;
  credentialKind: CredentialKind;
  /** null: the credential may act on every deployment of the tenant (spec section 5 rule 1). */
  deploymentIds: number[] | null;
}

const rank: Record<AccountRole, number> = { viewer: 0, developer: 1, admin: 2 };

export function hasRole(principal: Principal, needed: AccountRole): boolean {
  return rank[principal.role] >= rank[needed];
}

export function canReachDeployment(principal: Principal, deploymentId: number): boolean {
  return principal.deploymentIds === null || principal.deploymentIds.includes(deploymentId);
}

/** What a route requires; declared on every route as `config.access` and enforced in one place. */
export type Access =
  | { public: true }
  | {
      /** The least account role that may call the route. */
      role: AccountRole;
      /** Which kind of credential the route family takes (default `api`). */
      credential?: CredentialKind;
      /**
       * Account-level routes refuse deployment-scoped keys (spec 5 rule 2: only unscoped keys grant
       * account-wide access) unless `filter`, where the service narrows results to the key's scope.
       */
      scopedKeys?: 'deny' | 'filter';
    };
