import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifySchema, type FastifyServerOptions } from 'fastify';
import { registerAuthentication } from '../auth/authenticate.ts';
import type { Access } from '../auth/principal.ts';
import { InvalidationBus } from '../cache/invalidation-bus.ts';
import { type Application, composeApplication } from '../composition.ts';
import type { Config } from '../config/config.ts';
import type { SecretBox } from '../crypto/secrets.ts';
import type { Db } from '../db/database.ts';
import { registerErrorHandling } from '../errors/error-handler.ts';
import { apiKeyRoutes } from '../modules/api-keys/routes.ts';
import { appConfigRoutes } from '../modules/app-config/routes.ts';
import { auditLogRoutes } from '../modules/audit-log/routes.ts';
import { auditLogSweeperPlugin } from '../modules/audit-log/sweeper.ts';
import { agentRoutes } from '../modules/chat/agents/routes.ts';
import { chatRoutes } from '../modules/chat/routes.ts';
import { dashboardDataRoutes } from '../modules/dashboard-data/routes.ts';
import { dashboardRoutes } from '../modules/dashboards/routes.ts';
import { preAggregationRefresherPlugin } from '../modules/data/pre-aggregations/refresher.ts';
import { dataRoutes } from '../modules/data/routes.ts';
import { modelDirPlugin } from '../modules/data-model/model-dir-plugin.ts';
import { dataModelRoutes } from '../modules/data-model/routes.ts';
import { uploadRoutes } from '../modules/data-model/upload-routes.ts';
import { dataSourceRoutes, deploymentRoutes } from '../modules/deployments/routes.ts';
import { embedRoutes } from '../modules/embed/routes.ts';
import { embedSweeperPlugin } from '../modules/embed/sweeper.ts';
import { embedAccessRoutes } from '../modules/embed-tenants/access-routes.ts';
import { embedTenantRoutes } from '../modules/embed-tenants/routes.ts';
import { envVariableRoutes } from '../modules/env-variables/routes.ts';
import { folderRoutes } from '../modules/folders/routes.ts';
import { groupRoutes } from '../modules/groups/routes.ts';
import { dashboardExportRoutes, notificationRoutes } from '../modules/notifications/routes.ts';
import { notificationSchedulerPlugin } from '../modules/notifications/scheduler.ts';
import { oauthRoutes } from '../modules/oauth/routes.ts';
import { oidcSignInRoutes } from '../modules/oidc/external/routes.ts';
import { oidcIssuerRoutes } from '../modules/oidc/issuer/routes.ts';
import { permissionRoutes } from '../modules/permissions/routes.ts';
import { queryHistoryRoutes } from '../modules/query-history/routes.ts';
import { regionRoutes } from '../modules/regions/routes.ts';
import { reportRoutes } from '../modules/reports/routes.ts';
import { roleRoutes } from '../modules/roles/routes.ts';
import { scimPrefix } from '../modules/scim/constants.ts';
import { scimRoutes } from '../modules/scim/routes.ts';
import { signInRoutes } from '../modules/sign-in/routes.ts';
import { tenantSettingsRoutes } from '../modules/tenant-settings/routes.ts';
import { tokenRoutes } from '../modules/tokens/routes.ts';
import { userAttributeRoutes } from '../modules/user-attributes/routes.ts';
import { userRoutes } from '../modules/users/routes.ts';
import { workbookRoutes } from '../modules/workbooks/routes.ts';
import { workspaceRoutes } from '../modules/workspace/routes.ts';
import { redisParts } from '../redis-parts.ts';
import { replyToFrameworkError } from './framework-errors.ts';
import { closeUnusedConnectionsOnClose } from './graceful-close.ts';
import { registerHealth } from './health.ts';
import { lazySerializers, lazyValidatorCompiler } from './lazy-schemas.ts';
import { registerMetrics } from './metrics.ts';
import { registerOpenApi } from './openapi.ts';
import { registerRateLimit } from './rate-limit.ts';
import { registerTransportSecurity } from './transport-security.ts';
import type { App } from './types.ts';
import { registerDecimalIntegers, registerInputScreening, registerStrictQuerystrings } from './validation.ts';
import { registerWebApp } from './web-app.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  /** Cache invalidation; connect it to the store so that other replicas' writes are heard. */
  bus?: InvalidationBus;
  /** Pino logger options, or false to stay quiet (tests). */
  logger?: FastifyServerOptions['logger'];
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** A registered route, as the authorization-matrix and bad-input tests enumerate them. */
export interface RouteInfo {
  method: string;
  url: string;
  access: Access | undefined;
  schema: FastifySchema | undefined;
}

/**
 * The HTTP application: the root's hooks (authentication, rate limit, input screening, error
 * handler, route collection), then each module's routes as a Fastify plugin given the services it
 * calls, all built once by the composition root (composition.ts).
 */
export async function buildApp(
  deps: AppDeps,
): Promise<{ app: App; services: Application; routes: RouteInfo[] }> {
  const { config } = deps;
  const https =
    config.tlsCertFile && config.tlsKeyFile
      ? { https: { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile) } }
      : {};
  const app = Fastify({
    ...https,
    logger: deps.logger ?? { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    // Keep a caller's request id when it looks like one, so logs line up across services.
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : randomUUID();
    },
    ajv: { customOptions: { allErrors: true } },
    frameworkErrors: replyToFrameworkError,
    schemaController: lazySerializers,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(lazyValidatorCompiler);
  registerStrictQuerystrings(app);
  const routes: RouteInfo[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD')
        routes.push({ method, url: route.url, access: route.config?.access, schema: route.schema });
    }
  });
  // Graceful shutdown: once closing, responses ask keep-alive clients to hang up, so that the
  // server closes as soon as in-flight requests are answered instead of at the keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  closeUnusedConnectionsOnClose(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });

  const services = composeApplication({
    config,
    db: deps.db,
    secrets: deps.secrets,
    bus: deps.bus ?? new InvalidationBus(),
    redis: await redisParts(config.redisUrl),
  });
  app.addHook('onClose', () => services.close());

  // Hooks and handlers of the root apply to every route below: each module's routes are a plugin
  // registered in a scope of its own, which inherits them (and may override the error handler).
  registerErrorHandling(app);
  registerInputScreening(app);
  registerDecimalIntegers(app);
  registerTransportSecurity(app, config.env === 'production');
  // Parses the session cookie before the authentication hook reads it (hooks run in order).
  await app.register(cookie);
  registerAuthentication(app, {
    tenants: services.tenantResolver,
    apiKeys: services.repositories.apiKeys,
    credentials: services.credentials,
    embedTokens: services.embedTokens,
    sessions: services.browserSessions,
    ...(services.oidcSignIn ? { externalTokens: services.oidcSignIn } : {}),
  });
  await registerRateLimit(app, config.rateLimitPerMinute);
  await registerOpenApi(app);
  registerMetrics(app);
  registerHealth(app, deps.db);
  // The browser app: its bundle, and index.html for every page that no API route answers.
  // An embed page may be framed by the origins its tenant allows (modules/embed/frame-ancestors.ts).
  await registerWebApp(app, {
    embedFrameAncestors: async (request) =>
      services.embedSettings.frameAncestorsHeader(
        (await services.tenantResolver.resolve(request.headers.host)).id,
      ),
  });

  await app.register(deploymentRoutes, { deployments: services.deployments });
  await app.register(dataSourceRoutes, { deployments: services.deployments });
  await app.register(dataModelRoutes, { dataModel: services.dataModel });
  await app.register(uploadRoutes, { uploads: services.uploads });
  await app.register(apiKeyRoutes, { apiKeys: services.apiKeys });
  await app.register(userRoutes, { users: services.users });
  await app.register(signInRoutes, { signIn: services.signIn, secureCookie: config.env === 'production' });
  await app.register(groupRoutes, { groups: services.groups });
  await app.register(roleRoutes, { roles: services.roles });
  await app.register(folderRoutes, { folders: services.folders });
  await app.register(workbookRoutes, { workbooks: services.workbooks, duplicator: services.duplicator });
  await app.register(dashboardRoutes, { dashboards: services.dashboards });
  await app.register(reportRoutes, { reports: services.reports });
  await app.register(workspaceRoutes, { workspace: services.workspace, mover: services.mover });
  await app.register(permissionRoutes, { permissions: services.permissions });
  await app.register(appConfigRoutes, { appConfig: services.appConfig });
  await app.register(tenantSettingsRoutes, { tenantSettings: services.tenantSettings });
  await app.register(envVariableRoutes, { envVariables: services.envVariables });
  await app.register(queryHistoryRoutes, { queryHistory: services.queryHistory });
  await app.register(userAttributeRoutes, { userAttributes: services.userAttributes });
  await app.register(auditLogRoutes, { auditLog: services.auditLog });
  await app.register(regionRoutes, { regions: services.regions });
  await app.register(tokenRoutes, { tokens: services.tokens });
  await app.register(scimRoutes, {
    prefix: scimPrefix,
    users: services.scimUsers,
    groups: services.scimGroups,
  });
  await app.register(dataRoutes, { data: services.data });
  await app.register(dashboardDataRoutes, { dashboardData: services.dashboardData });
  await app.register(embedRoutes, {
    sessions: services.embedSessions,
    dashboards: services.embedDashboards,
    settings: services.embedSettings,
  });
  await app.register(embedTenantRoutes, { tenants: services.embedTenants, groups: services.embedGroups });
  await app.register(embedAccessRoutes, { access: services.embedAccess });
  await app.register(embedSweeperPlugin, { sweeper: services.embedSweeper });
  await app.register(auditLogSweeperPlugin, { sweeper: services.auditLogSweeper });
  await app.register(notificationRoutes, {
    notifications: services.notifications.notifications,
    recipients: services.notifications.recipients,
    runs: services.notifications.runs,
  });
  await app.register(dashboardExportRoutes, { exports: services.notifications.exports });
  await app.register(preAggregationRefresherPlugin, { refresher: services.preAggregations });
  await app.register(notificationSchedulerPlugin, {
    scheduler: services.notifications.scheduler,
    disabled: config.scheduler.disabled,
  });
  await app.register(agentRoutes, { agents: services.agents });
  await app.register(chatRoutes, { chat: services.chat });
  await app.register(oauthRoutes, {
    integrations: services.oauthIntegrations,
    tokens: services.userOAuthTokens,
  });
  await app.register(oidcSignInRoutes, {
    oidc: services.oidcSignIn,
    secureCookie: config.env === 'production',
    publicUrl: config.publicUrl,
  });
  await app.register(oidcIssuerRoutes, { issuer: services.oidcIssuer });
  // Shutting down suspends the turns running here (`__suspended__`); the same request resumes them.
  app.addHook('preClose', () => services.chat.suspendAll());
  // TESSERA_MODEL_DIR: the demo deployment's model from a directory, reloaded in development.
  await app.register(modelDirPlugin, {
    dir: config.modelDir,
    watch: config.env === 'development',
    db: deps.db,
    deployments: services.repositories.deployments,
  });

  return { app, services, routes };
}
