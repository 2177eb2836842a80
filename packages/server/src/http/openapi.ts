import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import { sessionCookieName } from '../auth/session-cookie.ts';
import { DATA_API_SECURITY, dataApiSecurityScheme, dataSchemas } from '../modules/data/openapi.ts';
import { documentErrors, errorSchemas } from './openapi-errors.ts';
import type { App } from './types.ts';

/**
 * Issue 25: scripts written for the hosted product look up operations by the reference's groups;
 * the groups that exist only because of the hosted product's own infrastructure are named here
 * with the reason, so that a missing operation is a documented decision, not a gap to guess at.
 */
const apiDescription = [
  'Management API of Tessera, a self-hostable analytics platform. Errors are application/problem+json (RFC 9457) with a stable `code`.',
  '',
  "Groups of the hosted product's API that Tessera does not serve, and why:",
  '- **GitHub** and **GitHub Connection**: they manage the hosted GitHub App installation. A self-hosted Tessera has no GitHub App; a model kept in git is reached over HTTPS with a token instead.',
  '- **Databricks Metric View Integration** and **Databricks Metric View Publication**: they publish models into a Databricks workspace the hosted product operates.',
  '- `GET /api/v1/deployments/{deploymentId}/pods`: the hosted product runs each deployment in its own pods; Tessera runs every deployment in the same process, so there are no pods to list.',
  '- `POST /api/v1/embed/dashboard/{publicId}/python-run`: it runs Python in the hosted sandbox; Tessera runs no user code outside its semantic layer.',
  "- `POST /api/v1/deployments/{deploymentId}/workbooks/{workbookId}/dashboard/ai-widget-thread`: it points a published dashboard's AI widget at a chat thread; Tessera's dashboards have no AI widgets (the agent chat is a panel beside a dashboard), so there is no widget to point.",
  '- **dbt Sync** with `source: git`: the hosted product clones the dbt repository and runs dbt in its sandbox. Tessera runs no dbt: every operation of the group is served, for a `manifest.json` uploaded in the request (400 naming `body/source` otherwise).',
  '',
  "Operations marked as Tessera's own (for example alerts, content as code, role-to-group assignments) have no counterpart in the reference.",
].join('\n');

/**
 * The OpenAPI document is generated from the route schemas (one TypeBox schema per shape), served
 * at /api/openapi.json with a reference page at /api/docs, and committed as
 * packages/server/openapi.json, which CI checks for drift.
 */
export async function registerOpenApi(app: App) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tessera API',
        version: '1.0.0',
        description: apiDescription,
      },
      components: {
        schemas: { ...errorSchemas, ...dataSchemas },
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'Send `Authorization: Bearer <API key>`.',
          },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: sessionCookieName,
            description:
              'The browser session `POST /api/v1/session` sets. Ignored when an Authorization header is sent; ' +
              'POST, PUT, PATCH and DELETE also need the header `x-csrf-token` with the token that ' +
              '`POST` or `GET /api/v1/session` answered (403 `csrf_token_invalid` otherwise).',
          },
          [DATA_API_SECURITY]: dataApiSecurityScheme,
        },
      },
      security: [{ bearerAuth: [] }],
    },
    hideUntagged: false,
    // Error responses per operation, from the error catalogue (errors/catalogue.ts).
    transform: documentErrors,
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get(
    '/api/openapi.json',
    {
      schema: { hide: true, response: { 200: Type.Object({}, { additionalProperties: true }) } },
      config: { access: { public: true } },
    },
    async () => app.swagger(),
  );
  // The reference's OpenAPI Spec group: the same document for runtime discovery by scripts and
  // agents written for the hosted product, which look for it here with their credential.
  app.get(
    '/api/v1/spec',
    {
      schema: {
        tags: ['OpenAPI Spec'],
        operationId: 'getSpec',
        summary: 'Get the OpenAPI specification',
        description:
          'The OpenAPI 3.1 document of this server, as served by the build handling the request: every path, ' +
          'parameter, request body and schema (the same document as `/api/openapi.json`).',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    async () => app.swagger(),
  );
}

/** The document as committed: stable key order so that the drift check compares text. */
export function openApiText(app: App): string {
  return `${JSON.stringify(app.swagger(), null, 2)}\n`;
}
