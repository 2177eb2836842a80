import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RegionsListQuery, RegionsListResponse } from './schemas.ts';
import type { RegionsService } from './service.ts';

export const regionRoutes: FastifyPluginAsyncTypebox<{ regions: RegionsService }> = async (
  app,
  { regions },
) => {
  app.get(
    '/api/v1/regions',
    {
      schema: {
        tags: ['Regions'],
        operationId: 'listRegions',
        summary: 'List the regions this server serves, cursor-paginated via `first`/`after`',
        querystring: RegionsListQuery,
        response: { 200: RegionsListResponse },
      },
      // The server's own configuration, the same for every caller: any credential may read it.
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (r) => regions.list(r.query),
  );
};
