import type { Db } from '../../db/database.ts';

/** `model_git_remotes` rows (migration 0037); secrets stay sealed here, opened by the service. */
export class GitRemotesRepository {
  constructor(private readonly db: Db) {}

  get(deploymentId: number, db: Db = this.db) {
    return db
      .selectFrom('model_git_remotes')
      .select(['url', 'token_sealed', 'webhook_secret_sealed'])
      .where('deployment_id', '=', deploymentId)
      .executeTakeFirst();
  }

  async put(
    deploymentId: number,
    row: { url: string; token_sealed: string | null; webhook_secret_sealed: string | null },
    db: Db = this.db,
  ) {
    await db
      .insertInto('model_git_remotes')
      .values({ deployment_id: deploymentId, ...row })
      .onConflict((oc) => oc.column('deployment_id').doUpdateSet({ ...row, updated_at: new Date() }))
      .execute();
  }

  async remove(deploymentId: number, db: Db = this.db) {
    const r = await db
      .deleteFrom('model_git_remotes')
      .where('deployment_id', '=', deploymentId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The tenant of a deployment, for a webhook that arrives with no credential. */
  async tenantOf(deploymentId: number) {
    const row = await this.db
      .selectFrom('deployments')
      .select('tenant_id')
      .where('id', '=', deploymentId)
      .executeTakeFirst();
    return row?.tenant_id ?? null;
  }

  async staging(deploymentId: number, db: Db = this.db): Promise<string[]> {
    const rows = await db
      .selectFrom('environments')
      .select('branch')
      .where('deployment_id', '=', deploymentId)
      .where('type', '=', 'staging')
      .execute();
    return rows.map((r) => r.branch);
  }

  async setStaging(deploymentId: number, branch: string, enabled: boolean, db: Db = this.db) {
    if (enabled)
      await db
        .insertInto('environments')
        .values({ deployment_id: deploymentId, type: 'staging', branch, user_id: null })
        .onConflict((oc) => oc.columns(['deployment_id', 'type', 'branch']).doNothing())
        .execute();
    else
      await db
        .deleteFrom('environments')
        .where('deployment_id', '=', deploymentId)
        .where('type', '=', 'staging')
        .where('branch', '=', branch)
        .execute();
  }

  /** The caller's dev-mode branch (a `development` environment), if any. */
  async activeBranch(deploymentId: number, userId: number) {
    const row = await this.db
      .selectFrom('environments')
      .select('branch')
      .where('deployment_id', '=', deploymentId)
      .where('type', '=', 'development')
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row?.branch ?? null;
  }
}
