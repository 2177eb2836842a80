import type { AccountRole } from '../db/schema.ts';

/**
 * Roles (issue 22 item 2, the reference's Roles group): what a role grants is a list of policies;
 * a user holds their own account role (users.role, one of the built-in roles) and the union of the
 * roles assigned to them. Authentication folds that union into the principal: an account-wide
 * role and, per deployment, a higher one where a `Deployment` policy names it. The access
 * declaration of every route (`config.access.role`) is then checked against it (authenticate.ts).
 * No assigned role makes a user an admin: only users.role does.
 */
export const policyResourceTypes = [
  'Global',
  'Deployment',
  'Report',
  'ReportFolder',
  'Agent',
  'AgentSpace',
  'Workbook',
  'Dashboard',
  'Folder',
  'ChatThread',
] as const;

export const policyActions = [
  'All',
  'DeploymentsManage',
  'DeploymentCreate',
  'DeploymentRead',
  'DeploymentUpdate',
  'DeploymentDelete',
  'SecretsManage',
  'DownloadData',
  'PlaygroundRead',
  'SchemaRead',
  'SchemaUpdate',
  'SchemaUpdateDevBranches',
  'APMRead',
  'ChatHistoryRead',
  'PreAggregationBuild',
  'AlertsCreate',
  'AlertsRead',
  'AlertsUpdate',
  'AlertsDelete',
  'AuditLogManage',
  'BillingRead',
  'SqlRunnerRead',
  'DataAssetsRead',
  'DataAssetsManage',
  'CubeNetworkConnect',
  'ReportRead',
  'ReportEdit',
  'ReportManage',
  'WorkbookManage',
  'WorkbookRead',
  'WorkbookEdit',
  'ChatThreadRead',
  'AgentManage',
  'AgentRead',
  'AgentSpaceManage',
  'AgentAdmin',
  'DeploymentAgentRead',
  'OAuthIntegrationsManage',
  'OAuthIntegrationsIssueTokens',
  'McpToolsManage',
  'AIBIDevelop',
  'AIBIExplore',
  'AIBIView',
  'ChartPalettesManage',
  'DashboardThemesManage',
  'AIBIDeveloper',
  'AIBIUser',
  'AIBIViewer',
  'EmbedDeploymentRead',
  'EmbedDashboardRead',
  'FolderRead',
  'FolderEdit',
  'FolderManage',
] as const;

export type PolicyResourceType = (typeof policyResourceTypes)[number];
export type PolicyAction = (typeof policyActions)[number];

export interface Policy {
  resourceType: PolicyResourceType;
  actions: PolicyAction[];
  resources: string[];
}

/** One role a user holds through an assignment, as authentication reads it. */
export interface HeldRole {
  /** The account role a built-in role is; null for a custom role. */
  builtIn: AccountRole | null;
  policies: Policy[];
}

/** Where a credential's user may act, and as what. */
export interface EffectiveAccess {
  role: AccountRole;
  /** Deployments where a role gives more than `role`, by deployment id. */
  deploymentRoles: Record<string, AccountRole>;
}

const rank: Record<AccountRole, number> = { viewer: 0, developer: 1, admin: 2 };
const higher = (a: AccountRole, b: AccountRole): AccountRole => (rank[a] >= rank[b] ? a : b);

/** The license tiers of a `Global` policy (the console's Base Role). */
const developerTiers = new Set<PolicyAction>(['All', 'AIBIDevelop', 'AIBIDeveloper']);
const viewerTiers = new Set<PolicyAction>(['AIBIExplore', 'AIBIView', 'AIBIUser', 'AIBIViewer']);
/** Deployment actions a viewer may hold (the console forces Developer for every other one). */
const readActions = new Set<PolicyAction>([
  'DeploymentRead',
  'DeploymentAgentRead',
  'DownloadData',
  'ChatHistoryRead',
]);

/** What one policy grants: a role everywhere, on some deployments, or nothing account-level. */
function policyGrant(policy: Policy): { role: AccountRole; deployments: string[] | 'all' } | null {
  if (policy.resourceType === 'Global') {
    if (policy.actions.some((a) => developerTiers.has(a))) return { role: 'developer', deployments: 'all' };
    if (policy.actions.some((a) => viewerTiers.has(a))) return { role: 'viewer', deployments: 'all' };
    return null;
  }
  if (policy.resourceType !== 'Deployment' || policy.actions.length === 0) return null;
  const role: AccountRole = policy.actions.every((a) => readActions.has(a)) ? 'viewer' : 'developer';
  return { role, deployments: policy.resources.includes('All') ? 'all' : policy.resources };
}

/**
 * Folds the user's own account role and the roles assigned to them into what they may do. A
 * built-in role assigned counts as its account role, but never as admin (the reference refuses to
 * assign it; a row that says so anyway grants developer at most). Custom roles grant developer at
 * most, account-wide or per deployment.
 */
export function effectiveAccess(own: AccountRole, held: readonly HeldRole[]): EffectiveAccess {
  let role = own;
  const deploymentRoles: Record<string, AccountRole> = {};
  for (const r of held) {
    if (r.builtIn) {
      role = higher(role, r.builtIn === 'admin' ? 'developer' : r.builtIn);
      continue;
    }
    for (const policy of r.policies) {
      const grant = policyGrant(policy);
      if (!grant) continue;
      if (grant.deployments === 'all') role = higher(role, grant.role);
      else
        for (const id of grant.deployments)
          deploymentRoles[id] = higher(deploymentRoles[id] ?? 'viewer', grant.role);
    }
  }
  for (const id of Object.keys(deploymentRoles)) {
    if (rank[deploymentRoles[id]] <= rank[role]) delete deploymentRoles[id];
  }
  return { role, deploymentRoles };
}
