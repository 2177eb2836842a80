import type { App } from './types.ts';

/**
 * The page at `/` until the web UI package lands: where the API reference, the OpenAPI document and
 * the operational endpoints are, so that the first URL `npm start` prints leads somewhere useful.
 */
const page = (origin: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tessera</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; }
  h1 { margin-bottom: .25rem; } p.lead { color: #52606d; margin-top: 0; }
  li { margin: .4rem 0; } code { background: #f0f4f8; padding: .1rem .3rem; border-radius: 3px; }
</style>
</head>
<body>
<h1>Tessera</h1>
<p class="lead">Self-hostable analytics: a management API, a data API over a semantic layer, SCIM provisioning.</p>
<ul>
  <li><a href="/api/docs">API reference</a>: every management endpoint, with schemas.</li>
  <li><a href="/api/openapi.json">OpenAPI document</a> (3.1), for generating clients.</li>
  <li><a href="/readyz">Readiness</a>, <a href="/healthz">liveness</a> and <a href="/metrics">Prometheus metrics</a>.</li>
</ul>
<p>Call the management API with the admin key printed at first start (also saved as
<code>.tessera/admin-api-key</code>):</p>
<pre><code>curl -H "Authorization: Bearer $(cat .tessera/admin-api-key)" ${origin}/api/v1/deployments</code></pre>
</body>
</html>
`;

export function registerHome(app: App) {
  app.get('/', { schema: { hide: true }, config: { access: { public: true } } }, async (request, reply) => {
    // The Host header is client input: only a plain host[:port] goes into the page.
    const host = /^[A-Za-z0-9.-]+(:\d+)?$/.test(request.host) ? request.host : 'localhost';
    return reply.type('text/html; charset=utf-8').send(page(`${request.protocol}://${host}`));
  });
}
