import rateLimit from '@fastify/rate-limit';
import { RateLimitedError } from '../errors/domain-errors.ts';
import type { App } from './types.ts';

/**
 * Requests per minute per credential (per client address before authentication), answered 429
 * with Retry-After. Runs after authentication so that the key, not the address, is counted.
 */
export async function registerRateLimit(app: App, perMinute: number) {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: perMinute,
    timeWindow: 60_000,
    allowList: (request) => {
      const access = request.routeOptions.config?.access;
      return !access || 'public' in access;
    },
    keyGenerator: (request) =>
      request.principal
        ? `${request.principal.credentialKind}:${request.principal.credentialId}`
        : `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
}
