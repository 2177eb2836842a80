import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { Type } from 'typebox';
import type { App } from './types.ts';

/** Prometheus metrics at /metrics: process defaults plus a request-duration histogram per route. */
export function registerMetrics(app: App) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL, keeps the label set bounded.
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get(
    '/metrics',
    { schema: { hide: true, response: { 200: Type.String() } }, config: { access: { public: true } } },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );
}
