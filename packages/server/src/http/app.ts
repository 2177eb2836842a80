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
    redis: await redisParts(config.redisUrl, config.redisPrefix),
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

  // Every module's routes, in the composition root's order (composition.ts `modules`), each a
  // plugin given its services there: a new module is a line in composition.ts, none here.
  for (const module of services.modules) await app.register(module.routes);
  // Shutting down suspends the turns running here (`__suspended__`); the same request resumes them.
  app.addHook('preClose', () => services.chat.suspendAll());

  return { app, services, routes };
}
