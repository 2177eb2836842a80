import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  ApiKey,
  ApiKeyIdParams,
  ApiKeysListQuery,
  ApiKeysListResponse,
  CreateApiKeyBody,
  CreatedApiKey,
} from './schemas.ts';
import type { ApiKeysService } from './service.ts';

const tags = ['API Keys'];

export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeysService }> = async (
  app,
  { apiKeys },
) => {
  app.get(
    '/api/v1/api-keys',
    {
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: 'List API keys (admins: all; others: their own)',
        querystring: ApiKeysListQuery,
        response: { 200: ApiKeysListResponse },
      },
      config: { access: { role: 'viewer' } },
    },
    (request) => apiKeys.list(principalOf(request), request.query),
  );

  app.post(
    '/api/v1/api-keys',
    {
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key; the key is shown once',
        body: CreateApiKeyBody,
        response: { 200: CreatedApiKey },
      },
      config: { access: { role: 'viewer' } },
    },
    (request) => apiKeys.create(principalOf(request), request.body),
  );

  app.get(
    '/api/v1/api-keys/:apiKeyId',
    {
      schema: {
        tags,
        operationId: 'getApiKey',
        summary: 'Get an API key (never the secret)',
        params: ApiKeyIdParams,
        response: { 200: ApiKey },
      },
      config: { access: { role: 'viewer' } },
    },
    (request) => apiKeys.get(principalOf(request), request.params.apiKeyId),
  );

  app.delete(
    '/api/v1/api-keys/:apiKeyId',
    {
      schema: {
        tags,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        params: ApiKeyIdParams,
        response: { 200: ApiKey },
      },
      config: { access: { role: 'viewer' } },
    },
    (request) => apiKeys.revoke(principalOf(request), request.params.apiKeyId),
  );
};
