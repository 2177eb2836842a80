import type { InvalidationBus } from './cache/invalidation-bus.ts';
import { ReadCache } from './cache/read-cache.ts';
import type { Config } from './config/config.ts';
import type { SecretBox } from './crypto/secrets.ts';
import { DriverRegistry } from './datasources/registry.ts';
import type { Db } from './db/database.ts';
import { composeAlerts } from './modules/alerts/compose.ts';
import { composeApiKeys } from './modules/api-keys/compose.ts';
import { ApiKeysRepository, type CredentialLookup } from './modules/api-keys/repository.ts';
import { composeAppConfig } from './modules/app-config/compose.ts';
import { AppConfigRepository } from './modules/app-config/repository.ts';
import { composeAuditLog } from './modules/audit-log/compose.ts';
import { AuditLogRepository } from './modules/audit-log/repository.ts';
import { AuditLogSweeper, auditLogSweeperPlugin } from './modules/audit-log/sweeper.ts';
import { AgentsRepository } from './modules/chat/agents/repository.ts';
import { composeChat } from './modules/chat/compose.ts';
import { LiveRuns } from './modules/chat/live-runs.ts';
import { ChatRepository } from './modules/chat/repository.ts';
import { composeComments } from './modules/comments/compose.ts';
import { composeContent } from './modules/content/compose.ts';
import { ContentRepository } from './modules/content/repository.ts';
import { composeDashboardData } from './modules/dashboard-data/compose.ts';
import { DashboardDataRepository } from './modules/dashboard-data/repository.ts';
import { composeDashboards } from './modules/dashboards/compose.ts';
import { DashboardsRepository } from './modules/dashboards/repository.ts';
import { QueryExecutor } from './modules/data/executor.ts';
import { ModelCache } from './modules/data/model-cache.ts';
import { PreAggregationMatcher } from './modules/data/pre-aggregations/matcher.ts';
import {
  PreAggregationRefresher,
  preAggregationRefresherPlugin,
  preAggregationSettings,
} from './modules/data/pre-aggregations/refresher.ts';
import { PreAggregationRepository } from './modules/data/pre-aggregations/repository.ts';
import { dataRoutes } from './modules/data/routes.ts';
import { DataService } from './modules/data/service.ts';
import { dataSettingsFromEnv } from './modules/data/settings.ts';
import { composeDataModel } from './modules/data-model/compose.ts';
import { modelDirPlugin } from './modules/data-model/model-dir-plugin.ts';
import { DataModelRepository } from './modules/data-model/repository.ts';
import { UploadRepository } from './modules/data-model/upload-repository.ts';
import { composeDbtSync } from './modules/dbt-sync/compose.ts';
import { composeDeploymentLogs } from './modules/deployment-logs/compose.ts';
import { composeDeployments } from './modules/deployments/compose.ts';
import { DeploymentsRepository } from './modules/deployments/repository.ts';
import { composeEmbed } from './modules/embed/compose.ts';
import { EmbedDashboardsRepository } from './modules/embed/dashboards-repository.ts';
import { EmbedSessionsRepository } from './modules/embed/sessions-repository.ts';
import { EmbedSettingsRepository } from './modules/embed/settings-repository.ts';
import { EmbedAccessRepository } from './modules/embed-tenants/access-repository.ts';
import { composeEmbedTenants } from './modules/embed-tenants/compose.ts';
import { EmbedGroupsRepository } from './modules/embed-tenants/groups-repository.ts';
import { EmbedTenantsRepository } from './modules/embed-tenants/tenants-repository.ts';
import { EmbedUsersRepository } from './modules/embed-tenants/users-repository.ts';
import { composeEnvVariables } from './modules/env-variables/compose.ts';
import { EnvVariablesRepository } from './modules/env-variables/repository.ts';
import { EnvVariableResolver } from './modules/env-variables/resolver.ts';
import { composeFolders } from './modules/folders/compose.ts';
import { FoldersRepository } from './modules/folders/repository.ts';
import { composeGroups } from './modules/groups/compose.ts';
import { GroupsRepository } from './modules/groups/repository.ts';
import { type ComposedModule, routesWith, servicesOf } from './modules/module.ts';
import { composeNotifications } from './modules/notifications/compose.ts';
import { composeOAuth } from './modules/oauth/compose.ts';
import { ExternalProvider } from './modules/oidc/external/provider.ts';
import { OidcIdentitiesRepository } from './modules/oidc/external/repository.ts';
import { oidcSignInRoutes } from './modules/oidc/external/routes.ts';
import { OidcSignInService } from './modules/oidc/external/service.ts';
import { SigningKeys } from './modules/oidc/issuer/keys.ts';
import { OidcIssuerRepository } from './modules/oidc/issuer/repository.ts';
import { oidcIssuerRoutes } from './modules/oidc/issuer/routes.ts';
import { OidcIssuerService } from './modules/oidc/issuer/service.ts';
import { composePermissions } from './modules/permissions/compose.ts';
import { PermissionsRepository } from './modules/permissions/repository.ts';
import { AccessResolver } from './modules/permissions/resolver.ts';
import { composeQueryHistory } from './modules/query-history/compose.ts';
import { QueryHistoryRepository } from './modules/query-history/repository.ts';
import { composeRegions } from './modules/regions/compose.ts';
import { composeReports } from './modules/reports/compose.ts';
import { ReportsRepository } from './modules/reports/repository.ts';
import { composeRoles } from './modules/roles/compose.ts';
import { RolesRepository } from './modules/roles/repository.ts';
import { scimPrefix } from './modules/scim/constants.ts';
import { scimGroupType } from './modules/scim/group-type.ts';
import { ScimMembershipsRepository } from './modules/scim/memberships-repository.ts';
import { ScimResourceRepository } from './modules/scim/resource-repository.ts';
import { ScimResourceService } from './modules/scim/resource-service.ts';
import { scimRoutes } from './modules/scim/routes.ts';
import { scimUserType } from './modules/scim/user-type.ts';
import { AttemptLimiter } from './modules/sign-in/attempts.ts';
import { composeSignIn } from './modules/sign-in/compose.ts';
import { SignInRepository } from './modules/sign-in/repository.ts';
import { BrowserSessions } from './modules/sign-in/sessions.ts';
import { composeTenantSettings } from './modules/tenant-settings/compose.ts';
import { TenantSettingsRepository } from './modules/tenant-settings/repository.ts';
import { TenantsRepository } from './modules/tenants/repository.ts';
import { TenantResolver } from './modules/tenants/resolver.ts';
import { composeTokens } from './modules/tokens/compose.ts';
import { composeEnvironmentTokens } from './modules/tokens/environment-compose.ts';
import { composeUsageAnalytics } from './modules/usage-analytics/compose.ts';
import { usageDeploymentId } from './modules/usage-analytics/source.ts';
import { composeUserAttributes } from './modules/user-attributes/compose.ts';
import { UserAttributesRepository } from './modules/user-attributes/repository.ts';
import { composeUsers } from './modules/users/compose.ts';
import { UsersRepository } from './modules/users/repository.ts';
import { composeWorkbooks } from './modules/workbooks/compose.ts';
import { WorkbooksRepository } from './modules/workbooks/repository.ts';
import { composeWorkspace } from './modules/workspace/compose.ts';
import { WorkspaceRepository } from './modules/workspace/repository.ts';
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
 * dependency order, each given exactly what it uses (STYLE.md 10). A module's `compose<Module>()`
 * builds its services and binds its routes plugin to them (modules/module.ts); `modules` lists
 * them in registration order and http/app.ts registers each plugin, knowing no module by name.
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
  const auditLogModule = composeAuditLog(repos.auditLog, repos.tenantSettings);
  const { auditLog } = auditLogModule.services;
  // Issue 22 item 3: what every account user's security context carries at serviceCloud.userAttributes.
  const userAttributesModule = composeUserAttributes({
    repository: repos.userAttributes,
    users: repos.users,
    audit: auditLog,
  });
  const { userAttributes } = userAttributesModule.services;
  const apiKeysModule = composeApiKeys(repos.apiKeys, repos.users, bus, auditLog);
  const usersModule = composeUsers(db, repos.users, repos.apiKeys, bus, repos.signIn, repos.roles, auditLog);
  const rolesModule = composeRoles(repos.roles, repos.users, bus, auditLog);
  const groupsModule = composeGroups(repos.groups, repos.users, auditLog, bus);
  // Browser sign-in (DESIGN.md "Web app and sessions"): the session cookie is a credential too.
  const browserSessions = new BrowserSessions(repos.signIn, bus, {
    idleMs: config.sessionIdleMinutes * 60_000,
    maxAgeMs: config.sessionMaxHours * 3_600_000,
  });
  const signInModule = composeSignIn(
    {
      db,
      repository: repos.signIn,
      users: repos.users,
      sessions: browserSessions,
      tenants: tenantResolver,
      // 10 failed attempts per email and client address in 15 minutes (OWASP authentication cheat sheet).
      attempts: new AttemptLimiter(10, 15 * 60_000),
      bus,
      audit: auditLog,
    },
    config.env === 'production',
  );
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
    awsServerCredentials: config.awsServerCredentials,
  });
  const deploymentsModule = composeDeployments({
    repository: repos.deployments,
    secrets,
    publicUrl: () => publicUrl(config),
    bus,
    variables: envVariableResolver,
    connections: drivers,
    audit: auditLog,
    oauthIntegrations: {
      exists: async (tenantId, id) =>
        (await oauthModule.services.oauthRepository.findIntegration(tenantId, id)) !== undefined,
    },
    // Issue 25 item 1: build-status compiles through the data-model module (composed below).
    models: () => dataModelModule.services.dataModel,
    buildLog: { write: (line) => deploymentLogs.write(line) },
  });
  const { deployments } = deploymentsModule.services;
  // Issue 25 item 1: recent query and build logs of each deployment, which any replica reads.
  const deploymentLogsModule = composeDeploymentLogs({ db, deployments });
  const { deploymentLogs } = deploymentLogsModule.services;
  const envVariablesModule = composeEnvVariables({
    repository: repos.envVariables,
    resolver: envVariableResolver,
    deployments,
    secrets,
    bus,
    audit: auditLog,
  });
  const dataModelModule = composeDataModel({
    db,
    modelFiles: repos.modelFiles,
    uploads: repos.uploads,
    deployments,
    audit: auditLog,
    secrets,
  });
  // Issue 25 item 3: dbt manifests synced into cubes on a model branch, through the data model's service.
  const dbtSyncModule = composeDbtSync({ config, db, target: dataModelModule.services.dataModel });
  // The SQL editor's history of runs, each user's own (issue 21 item 2).
  const queryHistoryModule = composeQueryHistory(repos.queryHistory, deployments);
  const tokensModule = composeTokens({
    deployments,
    repository: repos.deployments,
    secrets,
    bus,
    modelFiles: repos.modelFiles,
    userAttributes,
    audit: auditLog,
  });
  // Issue 25 item 1: tokens bound to an environment's model branch.
  const environmentTokensModule = composeEnvironmentTokens({ db, deployments, secrets });

  // Issue 25 item 5: Usage Analytics, each tenant's built-in deployment over its own usage, and
  // the dashboard view log it reads.
  const usageAnalyticsModule = composeUsageAnalytics(db, { secrets, publicUrl: () => publicUrl(config) });
  const { usageSource, dashboardViews } = usageAnalyticsModule.services;

  // Workspace content: every content check is answered by one access resolver (permissions/access.ts).
  const access = new AccessResolver({ deployments, folders: repos.folders, permissions: repos.permissions });
  const dashboardsModule = composeDashboards({
    db,
    dashboards: repos.dashboards,
    workbooks: repos.workbooks,
    reports: repos.reports,
    access,
    audit: auditLog,
  });
  const { dashboards } = dashboardsModule.services;
  const workbooksModule = composeWorkbooks({
    workbooks: {
      db,
      workbooks: repos.workbooks,
      dashboards: repos.dashboards,
      permissions: repos.permissions,
      access,
      audit: auditLog,
    },
    duplicator: {
      db,
      workbookRows: repos.workbooks,
      reports: repos.reports,
      dashboards: repos.dashboards,
      publishing: dashboards,
      permissions: repos.permissions,
      access,
      audit: auditLog,
    },
  });
  const { workbooks } = workbooksModule.services;
  const foldersModule = composeFolders({
    db,
    folders: repos.folders,
    permissions: repos.permissions,
    access,
    audit: auditLog,
  });
  const reportsModule = composeReports({
    db,
    reports: repos.reports,
    workbooks: repos.workbooks,
    permissions: repos.permissions,
    access,
    audit: auditLog,
  });
  const workspaceModule = composeWorkspace({
    workspace: { access, repository: repos.workspace },
    mover: {
      db,
      folders: repos.folders,
      workbooks: repos.workbooks,
      workbookViews: workbooks,
      reports: repos.reports,
      access,
      audit: auditLog,
    },
    deleters: {
      FOLDER: foldersModule.services.folders,
      WORKBOOK: workbooks,
      REPORT: reportsModule.services.reports,
    },
  });
  const permissionsModule = composePermissions({
    permissions: repos.permissions,
    users: repos.users,
    groups: repos.groups,
    workbooks: repos.workbooks,
    reports: repos.reports,
    access,
    db,
    audit: auditLog,
  });
  const appConfigModule = composeAppConfig(db, repos.appConfig, auditLog);
  const tenantSettingsModule = composeTenantSettings(db, repos.tenantSettings, auditLog);
  const regionsModule = composeRegions(config.regions);

  // Embedding (spec 2.6, 4.3; DESIGN.md "Identity and access": embed tokens are a credential).
  // Issue 22 item 0: embed-tenants holds the one writer of embed users, for every module that creates them.
  const embedTenantsModule = composeEmbedTenants({
    db,
    tenants: repos.embedTenants,
    groups: repos.embedGroups,
    users: repos.embedUsers,
    audit: auditLog,
    access: {
      shares: repos.embedAccess,
      workbooks: repos.workbooks,
      dashboards: repos.dashboards,
      access,
    },
  });
  const { embedIdentities } = embedTenantsModule.services;
  const embedModule = composeEmbed({
    tokens: { settings: repos.embedSettings, sessions: repos.embedSessions, secrets },
    dashboards: {
      db,
      embeddable: repos.embedDashboards,
      dashboards: repos.dashboards,
      workbooks: repos.workbooks,
      shares: repos.embedAccess,
      access,
      views: dashboardViews,
    },
    sessions: {
      db,
      deployments,
      settings: repos.embedSettings,
      sessions: repos.embedSessions,
      identities: embedIdentities,
      hostTenants: tenantResolver,
      userAttributes,
    },
    settings: [db, repos.embedSettings, auditLog],
    sweeper: { users: embedIdentities, sessions: repos.embedSessions },
  });
  const { embedDashboards } = embedModule.services;
  // Issue 25 item 4: comments on dashboards, for embed users and account users.
  const commentsModule = composeComments({
    db,
    dashboards: repos.dashboards,
    workbooks: repos.workbooks,
    embedDashboards,
    access,
  });
  // Issue 22 item 4: audit entries past the tenant's retention are deleted.
  const auditLogSweeper = new AuditLogSweeper(repos.auditLog);

  // The data API (DESIGN.md "Semantic layer and data API") and the dashboard data that runs
  // widget queries through it. The drivers (created with the deployments, which test connections
  // through them) hold connections: `close` releases them.
  // REDIS_URL: replicas share query results and run each query once between them (shared-cache.ts).
  const shared = redis?.shared;
  const models = new ModelCache(usageSource.modelFiles(repos.modelFiles), bus, deploymentLogs);
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
    drivers: usageSource.drivers(drivers),
    builtIn: { id: usageDeploymentId, deployments: usageSource },
    executor: new QueryExecutor(dataSettings, shared),
    shared,
    settings: dataSettings,
    preAggregations: new PreAggregationMatcher(preAggregations),
    log: deploymentLogs,
    // Issue 22 item 6: data sources that query with each viewer's own OAuth token (built below).
    viewerTokens: {
      accessToken: (tenantId, userId, id) =>
        oauthModule.services.userOAuthTokens.connectedAccessToken(tenantId, userId, id),
      integrationName: (tenantId, id) => oauthModule.services.userOAuthTokens.integrationName(tenantId, id),
    },
  });
  const dashboardDataModule = composeDashboardData({
    viewers: [
      { users: repos.users, groups: repos.groups, embed: embedDashboards },
      (tenantId, userId) => userAttributes.attributesOf(tenantId, userId),
    ],
    data: {
      deployments,
      access,
      workbooks: repos.workbooks,
      dashboards: repos.publishedDashboards,
      data,
      reports: repos.reports,
      downloads: {
        restricted: async (tenantId) =>
          (await repos.appConfig.find(tenantId))?.restrict_data_download ?? false,
      },
    },
  });
  const { dashboardData } = dashboardDataModule.services;
  const { viewers } = dashboardData;

  // The chat agent (DESIGN.md "Chat agent"): agents, and turns run over the data service.
  const chatRepository = new ChatRepository(db);
  const chatModule = composeChat({
    agents: {
      repository: repos.agents,
      deployments,
      secrets,
      publicUrl: () => publicUrl(config),
      db,
      audit: auditLog,
    },
    chat: {
      db,
      repository: chatRepository,
      embedUsers: embedIdentities,
      viewers,
      deployments,
      data,
      // REDIS_URL: replicas follow and abort each other's turns through Redis (modules/chat/fanout.ts)
      live: new LiveRuns(chatRepository, redis?.fanout),
    },
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
    embedIdentities,
    publishedDashboards: repos.publishedDashboards,
    dashboardData,
    publicUrl: () => publicUrl(config),
    audit: auditLog,
  });

  // Content kept as code (issue 25 item 6): export, plan and apply through the services above.
  const contentModule = composeContent({
    db,
    repository: new ContentRepository(db),
    deployments,
    access,
    treeLock: repos.folders,
    folders: foldersModule.services.folders,
    workbooks,
    reports: reportsModule.services.reports,
    dashboards,
    notifications: notificationsModule.services.notifications.notifications,
    permissions: permissionsModule.services.permissions,
  });

  // Issue 23 item 6: alerts on measures, read through the data API under the owner's or each
  // recipient's viewer, delivered through the notifications' channels: mail and signed webhook (modules/alerts).
  const alertsModule = composeAlerts({
    config,
    db,
    deployments,
    data,
    users: repos.users,
    viewers,
    publicUrl: () => publicUrl(config),
    audit: auditLog,
    secrets,
  });

  // OAuth integrations and users' connections through them (spec 4.1; modules/oauth).
  const oauthModule = composeOAuth({ db, secrets });

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

  // Every module, in the order http/app.ts registers their routes (the OpenAPI document's order):
  // a module's compose<Module>() gives its services (spread into the Application below) and its
  // routes plugin. A new module is its compose call above and one line here (issue 22 item 0).
  // The inline entries are modules without a compose<Module>() of their own yet.
  const modules = [
    deploymentsModule,
    deploymentLogsModule,
    dataModelModule,
    dbtSyncModule,
    apiKeysModule,
    usersModule,
    signInModule,
    groupsModule,
    rolesModule,
    foldersModule,
    workbooksModule,
    dashboardsModule,
    reportsModule,
    workspaceModule,
    permissionsModule,
    appConfigModule,
    tenantSettingsModule,
    envVariablesModule,
    queryHistoryModule,
    userAttributesModule,
    auditLogModule,
    regionsModule,
    tokensModule,
    environmentTokensModule,
    usageAnalyticsModule,
    {
      services: {},
      routes: routesWith(scimRoutes, { prefix: scimPrefix, users: scimUsers, groups: scimGroups }),
    },
    { services: {}, routes: routesWith(dataRoutes, { data }) },
    dashboardDataModule,
    embedModule,
    // Issue 22 item 4: the retention sweep, in every replica (no routes).
    { services: {}, routes: routesWith(auditLogSweeperPlugin, { sweeper: auditLogSweeper }) },
    embedTenantsModule,
    commentsModule,
    notificationsModule,
    contentModule,
    alertsModule,
    { services: {}, routes: routesWith(preAggregationRefresherPlugin, { refresher: preAggregations }) },
    chatModule,
    oauthModule,
    {
      services: {},
      routes: routesWith(oidcSignInRoutes, {
        oidc: oidcSignIn,
        secureCookie: config.env === 'production',
        publicUrl: config.publicUrl,
      }),
    },
    { services: {}, routes: routesWith(oidcIssuerRoutes, { issuer: oidcIssuer }) },
    // TESSERA_MODEL_DIR: the demo deployment's model from a directory, reloaded in development.
    {
      services: {},
      routes: routesWith(modelDirPlugin, {
        dir: config.modelDir,
        watch: config.env === 'development',
        db,
        deployments: repositories.deployments,
      }),
    },
  ] as const;

  return {
    bus,
    credentials,
    repositories,
    tenantResolver,
    browserSessions,
    scimUsers,
    scimGroups,
    data,
    auditLogSweeper,
    preAggregations,
    oidcSignIn,
    oidcIssuer,
    envVariableResolver,
    ...servicesOf(modules),
    /** Each module's routes plugin, for http/app.ts to register in this order. */
    modules: modules as readonly ComposedModule[],
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
