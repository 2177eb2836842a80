import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DashboardExportRow, DashboardExportsTable } from '../../db/schema.ts';

/** Dashboard export jobs and their files (the reference's Dashboard Exports group); plain Kysely. */
export class ExportsRepository {
  constructor(private readonly db: Db) {}

  async insert(values: Insertable<DashboardExportsTable>, db: Db = this.db): Promise<void> {
    await db.insertInto('dashboard_exports').values(values).execute();
  }

  /** A job as its requester sees it; expired jobs are gone even before the sweep removes them. */
  find(tenantId: number, deploymentId: number, id: string, userId: number, now: Date) {
    return this.db
      .selectFrom('dashboard_exports')
      .selectAll()
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .where('deployment_id', '=', deploymentId)
      .where('requested_by', '=', userId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  async inFlight(userId: number, now: Date): Promise<number> {
    const row = await this.db
      .selectFrom('dashboard_exports')
      .select(sql<string>`count(*)`.as('n'))
      .where('requested_by', '=', userId)
      .where('status', 'in', ['pending', 'processing'])
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Claims a job to render: pending, or left processing by a replica whose lease passed. */
  claim(id: string | null, now: Date, leaseUntil: Date, limit = 1): Promise<DashboardExportRow[]> {
    return this.db
      .updateTable('dashboard_exports')
      .set({ status: 'processing', lease_until: leaseUntil })
      .where('id', 'in', (eb) => {
        let q = eb
          .selectFrom('dashboard_exports')
          .select('id')
          .where('expires_at', '>', now)
          .where((w) =>
            w.or([
              w('status', '=', 'pending'),
              w.and([w('status', '=', 'processing'), w('lease_until', '<', now)]),
            ]),
          );
        if (id !== null) q = q.where('id', '=', id);
        return q.orderBy('created_at').limit(limit).forUpdate().skipLocked();
      })
      .returningAll()
      .execute();
  }

  async complete(id: string, contentType: string, file: Buffer): Promise<void> {
    await this.db
      .updateTable('dashboard_exports')
      .set({ status: 'completed', content_type: contentType, file, lease_until: null, error: null })
      .where('id', '=', id)
      .execute();
  }

  async fail(id: string, error: string): Promise<void> {
    await this.db
      .updateTable('dashboard_exports')
      .set({ status: 'failed', error, lease_until: null })
      .where('id', '=', id)
      .execute();
  }

  async deleteExpired(now: Date): Promise<number> {
    const r = await this.db.deleteFrom('dashboard_exports').where('expires_at', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
