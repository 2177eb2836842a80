import { ForbiddenError } from '../errors/domain-errors.ts';
import type { App } from './types.ts';

/**
 * Spec section 8: HTTPS only. In production a plain-HTTP request is refused unless a trusted proxy
 * says it terminated TLS (`X-Forwarded-Proto: https`, honoured only with TESSERA_TRUST_PROXY);
 * secure responses carry HSTS. Development serves plain HTTP (localhost).
 */
export function registerTransportSecurity(app: App, production: boolean) {
  if (!production) return;
  app.addHook('onRequest', async (request, reply) => {
    // request.protocol reads X-Forwarded-Proto only when trustProxy is on.
    if (request.protocol !== 'https') {
      throw new ForbiddenError('This server accepts HTTPS only', 'https_required');
    }
    reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
  });
}
