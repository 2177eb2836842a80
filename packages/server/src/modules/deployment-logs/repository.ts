import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DeploymentLogRow } from '../../db/schema.ts';

export interface NewLogLine {
  deploymentId: number;
  source: 'production' | 'dev';
  kind: 'query' | 'build';
  level: 'info' | 'error';
  branch: string;
  pod: string;
  message: string;
  details: Record<string, unknown>;
  at: Date;
}

export interface LogFilter {
  deploymentId: number;
  source?: 'production' | 'dev';
  pod?: string;
  /** Lines older than this id (the previous page's last); null: from the newest. */
  before: string | null;
  limit: number;
}

/** The deployments' log lines (migration 0031); plain Kysely, no rules. */
export class DeploymentLogsRepository {
  constructor(private readonly db: Db) {}

  /** Writes lines, then drops each deployment's lines past the newest `keep`, in one transaction. */
  async append(all: readonly NewLogLine[], keep: number): Promise<void> {
    if (all.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      // A deployment deleted since its lines were buffered takes them with it, not the others'.
      const ids = [...new Set(all.map((l) => l.deploymentId))];
      const live = new Set(
        (await trx.selectFrom('deployments').select('id').where('id', 'in', ids).execute()).map((d) => d.id),
      );
      const lines = all.filter((l) => live.has(l.deploymentId));
      if (lines.length === 0) return;
      await trx
        .insertInto('deployment_logs')
        .values(
          lines.map((l) => ({
            deployment_id: l.deploymentId,
            source: l.source,
            kind: l.kind,
            level: l.level,
            branch: l.branch,
            pod: l.pod,
            message: l.message,
            details: JSON.stringify(l.details),
            created_at: l.at,
          })),
        )
        .execute();
      for (const deploymentId of new Set(lines.map((l) => l.deploymentId))) {
        await trx
          .deleteFrom('deployment_logs')
          .where('deployment_id', '=', deploymentId)
          .where(
            'id',
            '<=',
            sql<string>`(SELECT id FROM deployment_logs WHERE deployment_id = ${deploymentId}
              ORDER BY id DESC OFFSET ${keep} LIMIT 1)`,
          )
          .execute();
      }
    });
  }

  /** Newest first; one row more than `limit`, so the caller can tell whether there is a next page. */
  list(filter: LogFilter): Promise<DeploymentLogRow[]> {
    let q = this.db
      .selectFrom('deployment_logs')
      .selectAll()
      .where('deployment_id', '=', filter.deploymentId)
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.source !== undefined) q = q.where('source', '=', filter.source);
    if (filter.pod !== undefined) q = q.where('pod', '=', filter.pod);
    if (filter.before !== null) q = q.where('id', '<', filter.before);
    return q.execute();
  }

  async count(deploymentId: number): Promise<number> {
    const row = await this.db
      .selectFrom('deployment_logs')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('deployment_id', '=', deploymentId)
      .executeTakeFirstOrThrow();
    return row.n;
  }
}
