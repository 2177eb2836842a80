import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import type { App } from './types.ts';

const Status = Type.Object({ status: Type.String() });

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the store answers). */
export function registerHealth(app: App, db: Db) {
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  app.get(
    '/healthz',
    {
      schema: { tags: ['Health'], summary: 'Liveness', security: [], response: { 200: Status } },
      config: { access: { public: true } },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Health'],
        summary: 'Readiness: the metadata store answers',
        security: [],
        response: { 200: Status, 503: Status },
      },
      config: { access: { public: true } },
    },
    async (_request, reply) => {
      if (closing) return reply.code(503).send({ status: 'closing' });
      try {
        await sql`select 1`.execute(db);
        return { status: 'ready' };
      } catch {
        return reply.code(503).send({ status: 'store unavailable' });
      }
    },
  );
}
