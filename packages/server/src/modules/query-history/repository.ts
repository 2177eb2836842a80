import type { Db } from '../../db/database.ts';
import type { QueryHistoryRow } from '../../db/schema.ts';
import { cursorId, type PageWindow } from '../../pagination/page.ts';

export interface NewQueryRun {
  userId: number;
  deploymentId: number;
  sql: string;
  rowCount: number | null;
  durationMs: number | null;
  error: string | null;
}

/** `query_history`: runs of the SQL editor, one list per user and deployment; plain Kysely, no rules. */
export class QueryHistoryRepository {
  constructor(private readonly db: Db) {}

  /** Newest first: keyset on the id, descending (`after` is the last id of the previous page). */
  list(userId: number, deploymentId: number, window: PageWindow): Promise<QueryHistoryRow[]> {
    let q = this.db
      .selectFrom('query_history')
      .selectAll()
      .where('user_id', '=', userId)
      .where('deployment_id', '=', deploymentId)
      .orderBy('id', 'desc')
      .limit(window.size + 1);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('id', '<', cursorId(window.after));
    return q.execute();
  }

  insert(run: NewQueryRun): Promise<QueryHistoryRow> {
    return this.db
      .insertInto('query_history')
      .values({
        user_id: run.userId,
        deployment_id: run.deploymentId,
        sql: run.sql,
        row_count: run.rowCount,
        duration_ms: run.durationMs,
        error: run.error,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Deletes all but the newest `keep` runs of one user on one deployment. */
  async trim(userId: number, deploymentId: number, keep: number): Promise<void> {
    await this.db
      .deleteFrom('query_history')
      .where('user_id', '=', userId)
      .where('deployment_id', '=', deploymentId)
      .where('id', 'not in', (eb) =>
        eb
          .selectFrom('query_history')
          .select('id')
          .where('user_id', '=', userId)
          .where('deployment_id', '=', deploymentId)
          .orderBy('id', 'desc')
          .limit(keep),
      )
      .execute();
  }

  async clear(userId: number, deploymentId: number): Promise<void> {
    await this.db
      .deleteFrom('query_history')
      .where('user_id', '=', userId)
      .where('deployment_id', '=', deploymentId)
      .execute();
  }
}
