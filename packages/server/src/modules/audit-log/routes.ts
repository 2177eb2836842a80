import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { AuditExportQuery, AuditListQuery, AuditListResponse } from './schemas.ts';
import type { AuditLog } from './service.ts';

const tags = ['Audit Log'];

/** Issue 22 item 5: the audit log, for admins: a filtered list, and the same filters exported as JSON lines. */
export const auditLogRoutes: FastifyPluginAsyncTypebox<{ auditLog: AuditLog }> = async (
  app,
  { auditLog },
) => {
  app.get(
    '/api/v1/audit-log',
    {
      schema: {
        tags,
        operationId: 'listAuditLog',
        summary:
          'List management changes, newest first: who, what, when, before and after, and the request id',
        querystring: AuditListQuery,
        response: { 200: AuditListResponse },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => auditLog.list(principalOf(request), request.query),
  );
  app.get(
    '/api/v1/audit-log/export',
    {
      schema: {
        tags,
        operationId: 'exportAuditLog',
        summary: 'Export the changes the filters select as JSON lines (one entry per line, newest first)',
        querystring: AuditExportQuery,
        response: {
          200: {
            description: 'One JSON audit entry (as the list answers it) per line',
            content: { 'application/jsonl': { schema: Type.String() } },
          },
        },
      },
      config: { access: { role: 'admin' } },
    },
    async (request, reply) => {
      const lines = auditLog.exportLines(principalOf(request), request.query);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type('application/jsonl; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-log-${day}.jsonl"`)
        .send(Readable.from(lines) as never);
    },
  );
};
