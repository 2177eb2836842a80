import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DbtSyncJobRow, DbtSyncJobsTable } from '../../db/schema.ts';

/** `dbt_sync_jobs` rows (migration 0032); plain Kysely, no rules. */
export class DbtSyncRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (jobs: DbtSyncRepository, trx: Db) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return fn(this, this.db);
    return this.db.transaction().execute((trx) => fn(new DbtSyncRepository(trx), trx));
  }

  async insert(values: Insertable<DbtSyncJobsTable>): Promise<void> {
    await this.db.insertInto('dbt_sync_jobs').values(values).execute();
  }

  find(deploymentId: number, syncJobId: string) {
    return this.db
      .selectFrom('dbt_sync_jobs')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('sync_job_id', '=', syncJobId)
      .executeTakeFirst();
  }

  /** Newest first; `beforeSeq` is the cursor of the page before. */
  list(
    deploymentId: number,
    filter: { status?: string; trigger?: string; beforeSeq?: number },
    limit: number,
  ): Promise<DbtSyncJobRow[]> {
    let q = this.db.selectFrom('dbt_sync_jobs').selectAll().where('deployment_id', '=', deploymentId);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status as DbtSyncJobRow['status']);
    if (filter.trigger !== undefined) q = q.where('trigger', '=', filter.trigger);
    if (filter.beforeSeq !== undefined) q = q.where('seq', '<', filter.beforeSeq);
    return q.orderBy('seq', 'desc').limit(limit).execute();
  }

  /**
   * Claims a running job for this runner (`token`): one nobody holds, or whose runner's lease
   * passed (its replica died). FOR UPDATE SKIP LOCKED: replicas claiming at once take different
   * jobs, and a job only one of them.
   */
  claim(syncJobId: string | null, now: Date, leaseUntil: Date, token: string): Promise<DbtSyncJobRow[]> {
    return this.db
      .updateTable('dbt_sync_jobs')
      .set({ claim_token: token, lease_until: leaseUntil, updated_at: now })
      .where('seq', 'in', (eb) => {
        let q = eb
          .selectFrom('dbt_sync_jobs')
          .select('seq')
          .where('status', '=', 'RUNNING')
          .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<', now)]));
        if (syncJobId !== null) q = q.where('sync_job_id', '=', syncJobId);
        return q.orderBy('seq').limit(1).forUpdate().skipLocked();
      })
      .returningAll()
      .execute();
  }

  /** Locks the job while its runner still holds it and it still runs: what a runner's writes re-check. */
  async lockIfMine(syncJobId: string, token: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('dbt_sync_jobs')
      .select('seq')
      .where('sync_job_id', '=', syncJobId)
      .where('claim_token', '=', token)
      .where('status', '=', 'RUNNING')
      .forUpdate()
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Updates a job its runner holds; false when it holds it no more (cancelled, or taken over). */
  async updateIfMine(
    syncJobId: string,
    token: string,
    values: Updateable<DbtSyncJobsTable>,
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('dbt_sync_jobs')
      .set(values)
      .where('sync_job_id', '=', syncJobId)
      .where('claim_token', '=', token)
      .where('status', '=', 'RUNNING')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Cancels a running job, appending `line` to its log. */
  async cancel(deploymentId: number, syncJobId: string, now: Date, line: unknown): Promise<boolean> {
    const r = await this.db
      .updateTable('dbt_sync_jobs')
      .set({
        status: 'CANCELLED',
        stage: 'FAILED',
        error: 'The sync was cancelled',
        manifest: null,
        lease_until: null,
        completed_at: now,
        updated_at: now,
        logs: sql`logs || ${JSON.stringify([line])}::jsonb`,
      })
      .where('deployment_id', '=', deploymentId)
      .where('sync_job_id', '=', syncJobId)
      .where('status', '=', 'RUNNING')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async remove(deploymentId: number, syncJobId: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('dbt_sync_jobs')
      .where('deployment_id', '=', deploymentId)
      .where('sync_job_id', '=', syncJobId)
      .where('status', '!=', 'RUNNING')
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }
}
