import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  QueryHistoryEntry,
  QueryHistoryListQuery,
  QueryHistoryListResponse,
  QueryHistoryParams,
  RecordQueryBody,
} from './schemas.ts';
import type { QueryHistoryService } from './service.ts';

const tags = ['Query History'];

/**
 * The SQL editor's history of runs (issue 21 item 2): the caller's own, on one deployment. Running
 * SQL takes a data-API token, which is a developer's (tokens/routes.ts), so the history is too.
 */
export const queryHistoryRoutes: FastifyPluginAsyncTypebox<{ queryHistory: QueryHistoryService }> = async (
  app,
  { queryHistory },
) => {
  const path = '/api/v1/deployments/:deploymentId/query-history';
  app.get(
    path,
    {
      schema: {
        tags,
        operationId: 'getQueryHistory',
        summary: "The caller's own SQL queries run on a deployment, newest first",
        params: QueryHistoryParams,
        querystring: QueryHistoryListQuery,
        response: { 200: QueryHistoryListResponse },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => queryHistory.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    path,
    {
      schema: {
        tags,
        operationId: 'recordQuery',
        summary: "Add a run to the caller's query history; only the newest 100 per deployment are kept",
        params: QueryHistoryParams,
        body: RecordQueryBody,
        response: { 200: QueryHistoryEntry },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => queryHistory.record(principalOf(r), r.params.deploymentId, r.body),
  );
  app.delete(
    path,
    {
      schema: {
        tags,
        operationId: 'clearQueryHistory',
        summary: "Clear the caller's query history on a deployment",
        params: QueryHistoryParams,
        response: { 204: Type.Null() },
      },
      config: { access: { role: 'developer' } },
    },
    async (r, reply) => {
      await queryHistory.clear(principalOf(r), r.params.deploymentId);
      return reply.code(204).send(null);
    },
  );
};
