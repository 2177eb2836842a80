import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { QueryHistoryRow } from '../../db/schema.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { QueryHistoryRepository } from './repository.ts';
import {
  historyLimit,
  type QueryHistoryEntry,
  type QueryHistoryListResponse,
  type RecordQueryBody,
} from './schemas.ts';

type Entry = Static<typeof QueryHistoryEntry>;

/**
 * The SQL editor's query history (issue 21 item 2): each user's own runs on a deployment, newest
 * first, the newest `historyLimit` kept. Nobody reads another user's history, admins included:
 * it is a scratch pad, not an audit log.
 */
export class QueryHistoryService {
  constructor(
    private readonly repository: QueryHistoryRepository,
    private readonly deployments: DeploymentsService,
    private readonly limit = historyLimit,
  ) {}

  async list(
    principal: Principal,
    deploymentId: number,
    query: PageQuery,
  ): Promise<Static<typeof QueryHistoryListResponse>> {
    await this.deployments.require(principal.tenantId, deploymentId);
    const window = pageWindow(query, 1);
    const rows = await this.repository.list(principal.userId, deploymentId, window);
    return toPage(rows, window, (r) => [r.id], toEntry);
  }

  /**
   * Records a run, then drops the user's runs beyond the limit. The trim runs after the insert
   * has committed, so that of concurrent writers the last trim sees every row and the list ends
   * at the limit (a trim inside the insert's transaction would miss its neighbours' rows).
   */
  async record(principal: Principal, deploymentId: number, body: Static<typeof RecordQueryBody>) {
    await this.deployments.require(principal.tenantId, deploymentId);
    const row = await this.repository.insert({
      userId: principal.userId,
      deploymentId,
      sql: body.sql,
      rowCount: body.rowCount ?? null,
      durationMs: body.durationMs ?? null,
      error: body.error ?? null,
    });
    await this.repository.trim(principal.userId, deploymentId, this.limit);
    return toEntry(row);
  }

  async clear(principal: Principal, deploymentId: number): Promise<void> {
    await this.deployments.require(principal.tenantId, deploymentId);
    await this.repository.clear(principal.userId, deploymentId);
  }
}

function toEntry(row: QueryHistoryRow): Entry {
  return {
    id: row.id,
    deploymentId: row.deployment_id,
    sql: row.sql,
    rowCount: row.row_count,
    durationMs: row.duration_ms,
    error: row.error,
    createdAt: row.created_at.toISOString(),
  };
}
