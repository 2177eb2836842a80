import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify, { type FastifySchema, type FastifyServerOptions } from 'fastify';
import { registerAuthentication } from '../auth/authenticate.ts';
import type { Access } from '../auth/principal.ts';
import { InvalidationBus } from '../cache/invalidation-bus.ts';
import type { Config } from '../config/config.ts';
import type { SecretBox } from '../crypto/secrets.ts';
import type { Db } from '../db/database.ts';
import { registerErrorHandling } from '../errors/error-handler.ts';
import { apiKeyRoutes } from '../modules/api-keys/routes.ts';
import { createDashboardDataService, dashboardDataRoutes } from '../modules/dashboard-data/routes.ts';
import { registerDataApi } from '../modules/data/plugin.ts';
import { registerModelDir } from '../modules/data-model/model-dir-plugin.ts';
import { DataModelRepository } from '../modules/data-model/repository.ts';
import { dataModelRoutes } from '../modules/data-model/routes.ts';
import { DataModelService } from '../modules/data-model/service.ts';
import { UploadRepository } from '../modules/data-model/upload-repository.ts';
import { uploadRoutes } from '../modules/data-model/upload-routes.ts';
import { UploadService } from '../modules/data-model/upload-service.ts';
import { deploymentRoutes } from '../modules/deployments/routes.ts';
import { groupRoutes } from '../modules/groups/routes.ts';
import { scimRoutes } from '../modules/scim/routes.ts';
import { tokenRoutes } from '../modules/tokens/routes.ts';
import { TokensService } from '../modules/tokens/service.ts';
import { userRoutes } from '../modules/users/routes.ts';
import { contentRoutes, createContentServices } from '../modules/workspace/wiring.ts';
import { registerHealth } from './health.ts';
import { registerHome } from './home.ts';
import { registerMetrics } from './metrics.ts';
import { registerOpenApi } from './openapi.ts';
import { registerRateLimit } from './rate-limit.ts';
import { createServices, type Services } from './services.ts';
import { registerTransportSecurity } from './transport-security.ts';
import type { App } from './types.ts';
import { registerInputScreening, registerStrictQuerystrings } from './validation.ts';

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

export async function buildApp(
  deps: AppDeps,
): Promise<{ app: App; services: Services; routes: RouteInfo[] }> {
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
  }) as unknown as App;
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
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
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });

  const publicUrl = () =>
    config.publicUrl ??
    `${https.https ? 'https' : 'http'}://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  const services = createServices(deps.db, deps.secrets, deps.bus ?? new InvalidationBus(), {
    domain: config.domain,
    publicUrl,
  });

  registerErrorHandling(app);
  registerInputScreening(app);
  registerTransportSecurity(app, config.env === 'production');
  registerAuthentication(app, {
    tenants: services.tenantResolver,
    apiKeys: services.repositories.apiKeys,
    credentials: services.credentials,
  });
  await registerRateLimit(app, config.rateLimitPerMinute);
  await registerOpenApi(app);
  registerMetrics(app);
  registerHealth(app, deps.db);
  registerHome(app);

  deploymentRoutes(app, services.deployments);
  const modelFiles = new DataModelRepository(deps.db);
  const dataModel = new DataModelService(modelFiles, services.deployments);
  dataModelRoutes(app, dataModel);
  uploadRoutes(app, new UploadService(new UploadRepository(deps.db), modelFiles, dataModel));
  apiKeyRoutes(app, services.apiKeys);
  userRoutes(app, services.users);
  groupRoutes(app, services.groups);
  contentRoutes(app, createContentServices(deps.db, services.deployments));
  scimRoutes(app, { users: services.scimUsers, groups: services.scimGroups });
  tokenRoutes(
    app,
    new TokensService({
      deployments: services.deployments,
      repository: services.repositories.deployments,
      secrets: deps.secrets,
      bus: services.bus,
      modelFiles,
    }),
  );
  await registerDataApi(app, {
    config,
    db: deps.db,
    secrets: deps.secrets,
    bus: services.bus,
    deployments: services.deployments,
    tenants: services.tenantResolver,
  });
  // Dashboard data (issue 5 item 8) runs widget queries through the data API's service.
  dashboardDataRoutes(app, createDashboardDataService(deps.db, services.deployments, app.dataApi));
  // TESSERA_MODEL_DIR: the demo deployment's model from a directory, reloaded in development.
  await registerModelDir(app, config, deps.db);

  return { app, services, routes };
}
