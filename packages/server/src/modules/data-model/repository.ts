import type { Db } from '../../db/database.ts';

/** `model_files` and development `environments` rows; plain Kysely, no rules. */
export class DataModelRepository {
  constructor(private readonly db: Db) {}

  /**
   * Runs `fn` in one transaction with a repository bound to it (inside the caller's transaction
   * when this repository already is one), so that a change and its audit entry commit together.
   */
  transaction<T>(fn: (files: DataModelRepository, trx: Db) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return fn(this, this.db);
    return this.db.transaction().execute((trx) => fn(new DataModelRepository(trx), trx));
  }

  files(deploymentId: number, branch: string) {
    return this.db
      .selectFrom('model_files')
      .select(['path', 'content', 'updated_at'])
      .where('deployment_id', '=', deploymentId)
      .where('branch', '=', branch)
      .orderBy('path')
      .execute();
  }

  async upsert(deploymentId: number, branch: string, files: readonly { path: string; content: string }[]) {
    await this.db
      .insertInto('model_files')
      .values(files.map((f) => ({ deployment_id: deploymentId, branch, path: f.path, content: f.content })))
      .onConflict((oc) =>
        oc.columns(['deployment_id', 'branch', 'path']).doUpdateSet((eb) => ({
          content: eb.ref('excluded.content'),
          updated_at: new Date(),
        })),
      )
      .execute();
  }

  /** The branch's files become exactly `files`, in one transaction. */
  async replaceBranch(
    deploymentId: number,
    branch: string,
    files: readonly { path: string; content: string }[],
  ) {
    await this.transaction(async (_, tx) => {
      await tx
        .deleteFrom('model_files')
        .where('deployment_id', '=', deploymentId)
        .where('branch', '=', branch)
        .execute();
      if (files.length > 0)
        await tx
          .insertInto('model_files')
          .values(
            files.map((f) => ({ deployment_id: deploymentId, branch, path: f.path, content: f.content })),
          )
          .execute();
    });
  }

  async remove(deploymentId: number, branch: string, paths: readonly string[]) {
    const q = this.db
      .deleteFrom('model_files')
      .where('deployment_id', '=', deploymentId)
      .where('branch', '=', branch);
    const r = await (paths.length > 0 ? q.where('path', 'in', paths as string[]) : q).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async rename(deploymentId: number, branch: string, files: readonly { path: string; newPath: string }[]) {
    await this.transaction(async (_, tx) => {
      for (const f of files) {
        await tx
          .updateTable('model_files')
          .set({ path: f.newPath, updated_at: new Date() })
          .where('deployment_id', '=', deploymentId)
          .where('branch', '=', branch)
          .where('path', '=', f.path)
          .execute();
      }
    });
  }

  async branches(deploymentId: number): Promise<string[]> {
    const [files, envs] = await Promise.all([
      this.db
        .selectFrom('model_files')
        .select('branch')
        .distinct()
        .where('deployment_id', '=', deploymentId)
        .execute(),
      this.db.selectFrom('environments').select('branch').where('deployment_id', '=', deploymentId).execute(),
    ]);
    return [...new Set([...files, ...envs].map((r) => r.branch))];
  }

  /** The store this repository writes to, for the deployment's git repository (git-repository.ts). */
  get database(): Db {
    return this.db;
  }

  async stagingBranches(deploymentId: number): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('environments')
      .select('branch')
      .where('deployment_id', '=', deploymentId)
      .where('type', '=', 'staging')
      .execute();
    return new Set(rows.map((r) => r.branch));
  }

  async addDevelopment(deploymentId: number, branch: string, userId: number) {
    await this.db
      .insertInto('environments')
      .values({ deployment_id: deploymentId, type: 'development', branch, user_id: userId })
      .onConflict((oc) => oc.columns(['deployment_id', 'type', 'branch']).doNothing())
      .execute();
  }

  async removeDevelopment(deploymentId: number, filter: { branch?: string; userId?: number }) {
    let q = this.db
      .deleteFrom('environments')
      .where('deployment_id', '=', deploymentId)
      .where('type', '=', 'development');
    if (filter.branch !== undefined) q = q.where('branch', '=', filter.branch);
    if (filter.userId !== undefined) q = q.where('user_id', '=', filter.userId);
    await q.execute();
  }
}
