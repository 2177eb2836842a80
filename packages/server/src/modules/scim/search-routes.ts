import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, contextOf, tags } from './plugin.ts';
import type { ResourceService } from './resource-service.ts';
import { AnyResource, listOf, ScimErrorSchema, SearchRequest, scimMedia } from './schemas.ts';
import { searchAll } from './search.ts';

/** POST /.search at the service provider's root (RFC 7644 section 3.4.3), over every resource type. */
export const searchRoutes: FastifyPluginAsyncTypebox<{ resources: ResourceService[] }> = async (
  app,
  { resources },
) => {
  app.post(
    '/.search',
    {
      schema: {
        tags,
        ...scimMedia,
        operationId: 'scimSearch',
        summary: 'Search Users and Groups together',
        body: SearchRequest,
        response: {
          200: listOf(AnyResource),
          400: ScimErrorSchema,
          401: ScimErrorSchema,
          403: ScimErrorSchema,
        },
      },
      config: access,
    },
    (request) => searchAll(contextOf(request), resources, request.body),
  );
};
