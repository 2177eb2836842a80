import type { InvalidationBus } from './cache/invalidation-bus.ts';
import { ReadCache } from './cache/read-cache.ts';
import type { Config } from './config/config.ts';
import type { SecretBox } from './crypto/secrets.ts';
import { DriverRegistry } from './datasources/registry.ts';
import type { Db } from './db/database.ts';
import { ApiKeysRepository, type CredentialLookup } from './modules/api-keys/repository.ts';
import { ApiKeysService } from './modules/api-keys/service.ts';
import { AppConfigRepository } from './modules/app-config/repository.ts';
import { AppConfigService } from './modules/app-config/service.ts';
import { AuditLogRepository } from './modules/audit-log/repository.ts';
import { AuditLog } from './modules/audit-log/service.ts';
import { AuditLogSweeper } from './modules/audit-log/sweeper.ts';
import { AgentsRepository } from './modules/chat/agents/repository.ts';
import { AgentsService } from './modules/chat/agents/service.ts';
import { LiveRuns } from './modules/chat/live-runs.ts';
import { ChatRepository } from './modules/chat/repository.ts';
import { ChatService } from './modules/chat/service.ts';
import { DashboardDataRepository } from './modules/dashboard-data/repository.ts';
import { ViewerResolver } from './modules/dashboard-data/security-context.ts';
import { DashboardDataService } from './modules/dashboard-data/service.ts';
import { DashboardsRepository } from './modules/dashboards/repository.ts';
import { DashboardsService } from './modules/dashboards/service.ts';
import { QueryExecutor } from './modules/data/executor.ts';
import { ModelCache } from './modules/data/model-cache.ts';
import { PreAggregationMatcher } from './modules/data/pre-aggregations/matcher.ts';
import {
  PreAggregationRefresher,
  preAggregationSettings,
} from './modules/data/pre-aggregations/refresher.ts';
import { PreAggregationRepository } from './modules/data/pre-aggregations/repository.ts';
import { DataService } from './modules/data/service.ts';
import { dataSettingsFromEnv } from './modules/data/settings.ts';
import { DataModelRepository } from './modules/data-model/repository.ts';
import { DataModelService } from './modules/data-model/service.ts';
import { UploadRepository } from './modules/data-model/upload-repository.ts';
import { UploadService } from './modules/data-model/upload-service.ts';
import { DeploymentsRepository } from './modules/deployments/repository.ts';
import { DeploymentsService } from './modules/deployments/service.ts';
import { EmbedDashboardsService } from './modules/embed/dashboard-service.ts';
import { EmbedDashboardsRepository } from './modules/embed/dashboards-repository.ts';
import { EmbedSessionService } from './modules/embed/session-service.ts';
import { EmbedSessionsRepository } from './modules/embed/sessions-repository.ts';
import { EmbedSettingsRepository } from './modules/embed/settings-repository.ts';
import { EmbedSettingsService } from './modules/embed/settings-service.ts';
import { EmbedSweeper } from './modules/embed/sweeper.ts';
import { EmbedTokens } from './modules/embed/tokens.ts';
import { EmbedAccessRepository } from './modules/embed-tenants/access-repository.ts';
import { EmbedAccessService } from './modules/embed-tenants/access-service.ts';
import { EmbedGroupsRepository } from './modules/embed-tenants/groups-repository.ts';
import { EmbedGroupsService } from './modules/embed-tenants/groups-service.ts';
import { EmbedTenantsService } from './modules/embed-tenants/service.ts';
import { EmbedTenantsRepository } from './modules/embed-tenants/tenants-repository.ts';
import { EmbedUsersRepository } from './modules/embed-tenants/users-repository.ts';
import { EnvVariablesRepository } from './modules/env-variables/repository.ts';
import { EnvVariableResolver } from './modules/env-variables/resolver.ts';
import { EnvVariablesService } from './modules/env-variables/service.ts';
import { FoldersRepository } from './modules/folders/repository.ts';
import { FoldersService } from './modules/folders/service.ts';
import { GroupsRepository } from './modules/groups/repository.ts';
import { GroupsService } from './modules/groups/service.ts';
import { composeNotifications } from './modules/notifications/compose.ts';
import { OAuthIntegrationsService } from './modules/oauth/integrations-service.ts';
import { OAuthRepository } from './modules/oauth/repository.ts';
import { UserOAuthTokensService } from './modules/oauth/tokens-service.ts';
import { ExternalProvider } from './modules/oidc/external/provider.ts';
import { OidcIdentitiesRepository } from './modules/oidc/external/repository.ts';
import { OidcSignInService } from './modules/oidc/external/service.ts';
import { SigningKeys } from './modules/oidc/issuer/keys.ts';
import { OidcIssuerRepository } from './modules/oidc/issuer/repository.ts';
import { OidcIssuerService } from './modules/oidc/issuer/service.ts';
import { PermissionsRepository } from './modules/permissions/repository.ts';
import { AccessResolver } from './modules/permissions/resolver.ts';
import { PermissionsService } from './modules/permissions/service.ts';
import { QueryHistoryRepository } from './modules/query-history/repository.ts';
import { QueryHistoryService } from './modules/query-history/service.ts';
import { RegionsService } from './modules/regions/service.ts';
import { ReportsRepository } from './modules/reports/repository.ts';
import { ReportsService } from './modules/reports/service.ts';
import { RolesRepository } from './modules/roles/repository.ts';
import { RolesService } from './modules/roles/service.ts';
import { scimGroupType } from './modules/scim/group-type.ts';
import { ScimMembershipsRepository } from './modules/scim/memberships-repository.ts';
import { ScimResourceRepository } from './modules/scim/resource-repository.ts';
import { ScimResourceService } from './modules/scim/resource-service.ts';
import { scimUserType } from './modules/scim/user-type.ts';
import { AttemptLimiter } from './modules/sign-in/attempts.ts';
import { SignInRepository } from './modules/sign-in/repository.ts';
import { SignInService } from './modules/sign-in/service.ts';
import { BrowserSessions } from './modules/sign-in/sessions.ts';
import { TenantSettingsRepository } from './modules/tenant-settings/repository.ts';
import { TenantSettingsService } from './modules/tenant-settings/service.ts';
import { TenantsRepository } from './modules/tenants/repository.ts';
import { TenantResolver } from './modules/tenants/resolver.ts';
import { TokensService } from './modules/tokens/service.ts';
import { UserAttributesRepository } from './modules/user-attributes/repository.ts';
import { UserAttributesService } from './modules/user-attributes/service.ts';
import { UsersRepository } from './modules/users/repository.ts';
import { UsersService } from './modules/users/service.ts';
import { WorkbookDuplicator } from './modules/workbooks/duplicate.ts';
import { WorkbooksRepository } from './modules/workbooks/repository.ts';
import { WorkbooksService } from './modules/workbooks/service.ts';
import { MoveService } from './modules/workspace/move-service.ts';
import { WorkspaceRepository } from './modules/workspace/repository.ts';
import { WorkspaceService } from './modules/workspace/service.ts';
import type { RedisParts } from './redis-parts.ts';

export interface CompositionDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  bus: InvalidationBus;
  /** Given when REDIS_URL is set (redis-parts.ts). */
  redis: RedisParts | null;
}

/**
 * The composition root: the whole application, every repository and service built once, in
 * dependency order, each given exactly what it uses (STYLE.md 10). Nothing here knows HTTP:
 * http/app.ts registers each module's routes as a Fastify plugin with the services it calls.
 */
export function composeApplication({ config, db, secrets, bus, redis }: CompositionDeps) {
  // Repositories: plain Kysely over the store, no rules (DESIGN.md "Inside packages/server/src").
  const repositories = {
    tenants: new TenantsRepository(db),
    users: new UsersRepository(db),
    apiKeys: new ApiKeysRepository(db),
    groups: new GroupsRepository(db),
    deployments: new DeploymentsRepository(db),
    modelFiles: new DataModelRepository(db),
    uploads: new UploadRepository(db),
    folders: new FoldersRepository(db),
    permissions: new PermissionsRepository(db),
    workbooks: new WorkbooksRepository(db),
    reports: new ReportsRepository(db),
    dashboards: new DashboardsRepository(db),
    publishedDashboards: new DashboardDataRepository(db),
    workspace: new WorkspaceRepository(db),
    appConfig: new AppConfigRepository(db),
    scimUsers: new ScimResourceRepository(db, 'users'),
    scimGroups: new ScimResourceRepository(db, 'groups'),
    scimMemberships: new ScimMembershipsRepository(db),
    embedSettings: new EmbedSettingsRepository(db),
    embedSessions: new EmbedSessionsRepository(db),
    embedDashboards: new EmbedDashboardsRepository(db),
    embedTenants: new EmbedTenantsRepository(db),
    embedGroups: new EmbedGroupsRepository(db),
    embedUsers: new EmbedUsersRepository(db),
    embedAccess: new EmbedAccessRepository(db),
    agents: new AgentsRepository(db),
    signIn: new SignInRepository(db),
    tenantSettings: new TenantSettingsRepository(db),
    envVariables: new EnvVariablesRepository(db),
    roles: new RolesRepository(db),
    queryHistory: new QueryHistoryRepository(db),
    userAttributes: new UserAttributesRepository(db),
    auditLog: new AuditLogRepository(db),
  };
  const repos = repositories;

  // Identity: tenants by host, credentials, users and groups (DESIGN.md "Identity and access").
  // Revocation must bite on the next request: the cache drops everything on any credential change.
  const credentials = new ReadCache<CredentialLookup | undefined>(
    30_000,
    10_000,
    (found) => found !== undefined,
  );
  bus.subscribe('credentials', () => credentials.clear());
  const tenantResolver = new TenantResolver(repos.tenants, config.domain);
  // Issue 22 item 5: every management service records its changes here, in the change's transaction.
  const auditLog = new AuditLog(repos.auditLog, repos.tenantSettings);
  // Issue 22 item 3: what every account user's security context carries at serviceCloud.userAttributes.
  const userAttributes = new UserAttributesService({
    repository: repos.userAttributes,
    users: repos.users,
    audit: auditLog,
  });
  const apiKeys = new ApiKeysService(repos.apiKeys, repos.users, bus, auditLog);
  const users = new UsersService(db, repos.users, repos.apiKeys, bus, repos.signIn, repos.roles, auditLog);
  const roles = new RolesService(repos.roles, repos.users, bus, auditLog);
  const groups = new GroupsService(repos.groups, repos.users, auditLog);
  // Browser sign-in (DESIGN.md "Web app and sessions"): the session cookie is a credential too.
  const browserSessions = new BrowserSessions(repos.signIn, bus, {
    idleMs: config.sessionIdleMinutes * 60_000,
    maxAgeMs: config.sessionMaxHours * 3_600_000,
  });
  const signIn = new SignInService({
    db,
    repository: repos.signIn,
    users: repos.users,
    sessions: browserSessions,
    tenants: tenantResolver,
    // 10 failed attempts per email and client address in 15 minutes (OWASP authentication cheat sheet).
    attempts: new AttemptLimiter(10, 15 * 60_000),
    bus,
    audit: auditLog,
  });
  const scimUsers = new ScimResourceService(
    db,
    repos.scimUsers,
    scimUserType({
      users: repos.users,
      apiKeys: repos.apiKeys,
      sessions: repos.signIn,
      memberships: repos.scimMemberships,
      bus,
    }),
    auditLog,
  );
  const scimGroups = new ScimResourceService(
    db,
    repos.scimGroups,
    scimGroupType({ memberships: repos.scimMemberships }),
    auditLog,
  );

  // Deployments, their env variables (`${NAME}` in data-source settings), data models and tokens.
  // Issued variables: deployment tokens of OIDC token configs with a target env variable.
  const envVariableResolver: EnvVariableResolver = new EnvVariableResolver(repos.envVariables, secrets, bus, {
    values: (deploymentId): Promise<ReadonlyMap<string, string>> => oidcIssuer.variablesFor(deploymentId),
    names: (deploymentId, trx): Promise<string[]> => oidcIssuer.variableNamesFor(deploymentId, trx),
  });
  const dataSettings = dataSettingsFromEnv();
  const drivers = new DriverRegistry({
    dataDir: config.dataDir,
    secrets,
    sampleScale: dataSettings.sampleScale,
    variables: envVariableResolver,
  });
  const deployments = new DeploymentsService({
    repository: repos.deployments,
    secrets,
    publicUrl: () => publicUrl(config),
    bus,
    variables: envVariableResolver,
    connections: drivers,
    audit: auditLog,
  });
  const envVariables = new EnvVariablesService({
    repository: repos.envVariables,
    resolver: envVariableResolver,
    deployments,
    secrets,
    bus,
    audit: auditLog,
  });
  const dataModel = new DataModelService(repos.modelFiles, deployments, auditLog);
  // The SQL editor's history of runs, each user's own (issue 21 item 2).
  const queryHistory = new QueryHistoryService(repos.queryHistory, deployments);
  const uploads = new UploadService(repos.uploads, repos.modelFiles, dataModel, auditLog);
  const tokens = new TokensService({
    deployments,
    repository: repos.deployments,
    secrets,
    bus,
    modelFiles: repos.modelFiles,
    userAttributes,
    audit: auditLog,
  });

  // Workspace content: every content check is answered by one access resolver (permissions/access.ts).
  const access = new AccessResolver({ deployments, folders: repos.folders, permissions: repos.permissions });
  const workbooks = new WorkbooksService({
    db,
    workbooks: repos.workbooks,
    dashboards: repos.dashboards,
    permissions: repos.permissions,
    access,
    audit: auditLog,
  });
  const dashboards = new DashboardsService({
    db,
    dashboards: repos.dashboards,
    workbooks: repos.workbooks,
    reports: repos.reports,
    access,
    audit: auditLog,
  });
  const duplicator = new WorkbookDuplicator({
    db,
    workbooks,
    workbookRows: repos.workbooks,
    reports: repos.reports,
    dashboards: repos.dashboards,
    publishing: dashboards,
    permissions: repos.permissions,
    access,
    audit: auditLog,
  });
  const folders = new FoldersService({
    db,
    folders: repos.folders,
    permissions: repos.permissions,
    access,
    audit: auditLog,
  });
  const reports = new ReportsService({
    db,
    reports: repos.reports,
    workbooks: repos.workbooks,
    permissions: repos.permissions,
    access,
    audit: auditLog,
  });
  const workspace = new WorkspaceService({ access, repository: repos.workspace });
  const mover = new MoveService({
    db,
    folders: repos.folders,
    workbooks: repos.workbooks,
    workbookViews: workbooks,
    reports: repos.reports,
    access,
    audit: auditLog,
  });
  const permissions = new PermissionsService({
    permissions: repos.permissions,
    users: repos.users,
    groups: repos.groups,
    workbooks: repos.workbooks,
    reports: repos.reports,
    access,
    db,
    audit: auditLog,
  });
  const appConfig = new AppConfigService(db, repos.appConfig, auditLog);
  const tenantSettings = new TenantSettingsService(db, repos.tenantSettings, auditLog);
  const regions = new RegionsService(config.regions);

  // Embedding (spec 2.6, 4.3; DESIGN.md "Identity and access": embed tokens are a credential).
  const embedTokens = new EmbedTokens({
    settings: repos.embedSettings,
    sessions: repos.embedSessions,
    secrets,
  });
  const embedDashboards = new EmbedDashboardsService({
    db,
    embeddable: repos.embedDashboards,
    dashboards: repos.dashboards,
    workbooks: repos.workbooks,
    shares: repos.embedAccess,
    access,
  });
  const embedSessions = new EmbedSessionService({
    db,
    deployments,
    settings: repos.embedSettings,
    sessions: repos.embedSessions,
    tenants: repos.embedTenants,
    groups: repos.embedGroups,
    users: repos.embedUsers,
    dashboards: embedDashboards,
    tokens: embedTokens,
    hostTenants: tenantResolver,
    userAttributes,
  });
  const embedSettings = new EmbedSettingsService(db, repos.embedSettings, auditLog);
  const embedTenants = new EmbedTenantsService({
    db,
    tenants: repos.embedTenants,
    groups: repos.embedGroups,
    users: repos.embedUsers,
    audit: auditLog,
  });
  const embedGroups = new EmbedGroupsService({
    db,
    tenants: embedTenants,
    groups: repos.embedGroups,
    users: repos.embedUsers,
    audit: auditLog,
  });
  const embedAccess = new EmbedAccessService({
    db,
    shares: repos.embedAccess,
    tenants: embedTenants,
    workbooks: repos.workbooks,
    dashboards: repos.dashboards,
    access,
    audit: auditLog,
  });
  const embedSweeper = new EmbedSweeper({ users: repos.embedUsers, sessions: repos.embedSessions });
  // Issue 22 item 4: audit entries past the tenant's retention are deleted.
  const auditLogSweeper = new AuditLogSweeper(repos.auditLog);

  // The data API (DESIGN.md "Semantic layer and data API") and the dashboard data that runs
  // widget queries through it. The drivers (created with the deployments, which test connections
  // through them) hold connections: `close` releases them.
  // REDIS_URL: replicas share query results and run each query once between them (shared-cache.ts).
  const shared = redis?.shared;
  const models = new ModelCache(repos.modelFiles, bus);
  // Rollups (issue 15 item 5): built in the background, one replica at a time, matched to queries.
  const preAggregations = new PreAggregationRefresher({
    repository: new PreAggregationRepository(db),
    models,
    drivers,
    dataDir: config.dataDir,
    settings: preAggregationSettings(config.preAggregations.refreshMs),
  });
  const data = new DataService({
    deployments,
    tenants: tenantResolver,
    secrets,
    models,
    drivers,
    executor: new QueryExecutor(dataSettings, shared),
    shared,
    settings: dataSettings,
    preAggregations: new PreAggregationMatcher(preAggregations),
  });
  const viewers = new ViewerResolver(
    { users: repos.users, groups: repos.groups, embed: embedDashboards },
    (tenantId, userId) => userAttributes.attributesOf(tenantId, userId),
  );
  const dashboardData = new DashboardDataService({
    deployments,
    access,
    workbooks: repos.workbooks,
    dashboards: repos.publishedDashboards,
    viewers,
    data,
    reports: repos.reports,
  });

  // The chat agent (DESIGN.md "Chat agent"): agents, and turns run over the data service.
  const agents = new AgentsService({
    repository: repos.agents,
    deployments,
    secrets,
    publicUrl: () => publicUrl(config),
    db,
    audit: auditLog,
  });
  const chatRepository = new ChatRepository(db);
  const chat = new ChatService({
    db,
    repository: chatRepository,
    embedUsers: repos.embedUsers,
    viewers,
    agents,
    deployments,
    data,
    // REDIS_URL: replicas follow and abort each other's turns through Redis (modules/chat/fanout.ts)
    live: new LiveRuns(chatRepository, redis?.fanout),
  });

  // Scheduled notifications and dashboard exports (spec 2.5, 4.5, 6; modules/notifications).
  const notificationsModule = composeNotifications({
    config,
    db,
    secrets,
    deployments,
    access,
    users: repos.users,
    workbooks: repos.workbooks,
    embedTenants: repos.embedTenants,
    embedUsers: repos.embedUsers,
    publishedDashboards: repos.publishedDashboards,
    dashboardData,
    publicUrl: () => publicUrl(config),
    audit: auditLog,
  });

  // OAuth integrations and users' connections through them (spec 4.1; modules/oauth).
  const oauthRepository = new OAuthRepository(db);
  const oauthIntegrations = new OAuthIntegrationsService(oauthRepository, secrets);
  const userOAuthTokens = new UserOAuthTokensService({
    repository: oauthRepository,
    integrations: oauthIntegrations,
    secrets,
  });

  // Sign-in with an external OpenID provider, and its access tokens as credentials (modules/oidc/external).
  const oidcSignIn = config.oidc
    ? new OidcSignInService({
        provider: new ExternalProvider(config.oidc),
        identities: new OidcIdentitiesRepository(db),
        users: repos.users,
        groups: repos.groups,
        signIn: repos.signIn,
        sessions: browserSessions,
        tenants: tenantResolver,
        secrets,
        bus,
      })
    : null;

  // Tessera as an OpenID issuer for its deployments (modules/oidc/issuer).
  const oidcIssuerRepository = new OidcIssuerRepository(db);
  const oidcIssuer: OidcIssuerService = new OidcIssuerService({
    repository: oidcIssuerRepository,
    keys: new SigningKeys(oidcIssuerRepository, secrets),
    deployments,
    issuer: () => publicUrl(config).replace(/\/+$/, ''),
    region: config.regions[0]?.name ?? 'local',
  });

  return {
    bus,
    credentials,
    repositories,
    tenantResolver,
    auditLog,
    userAttributes,
    apiKeys,
    users,
    roles,
    groups,
    browserSessions,
    signIn,
    scimUsers,
    scimGroups,
    deployments,
    dataModel,
    uploads,
    tokens,
    folders,
    workbooks,
    duplicator,
    dashboards,
    reports,
    workspace,
    mover,
    permissions,
    appConfig,
    tenantSettings,
    regions,
    envVariables,
    queryHistory,
    data,
    dashboardData,
    embedTokens,
    embedDashboards,
    embedSessions,
    embedSettings,
    embedTenants,
    embedGroups,
    embedAccess,
    embedSweeper,
    auditLogSweeper,
    agents,
    chat,
    notifications: notificationsModule,
    preAggregations,
    oauthRepository,
    oauthIntegrations,
    userOAuthTokens,
    oidcSignIn,
    oidcIssuer,
    envVariableResolver,
    /** Releases what the application opened (data-source connections); the store is the caller's. */
    close: async () => {
      await shared?.close();
      await drivers.close();
    },
  };
}

export type Application = ReturnType<typeof composeApplication>;

/** Where clients reach this server: TESSERA_PUBLIC_URL, else the address it listens on. */
function publicUrl(config: Config): string {
  const scheme = config.tlsCertFile && config.tlsKeyFile ? 'https' : 'http';
  return (
    config.publicUrl ?? `${scheme}://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`
  );
}
