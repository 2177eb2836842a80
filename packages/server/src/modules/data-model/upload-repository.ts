import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** `model_upload_sessions` and `model_upload_files`; plain Kysely, no rules. */
export class UploadRepository {
  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction with repositories bound to it. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async create(s: { id: string; deploymentId: number; branch: string; userId: number; expiresAt: Date }) {
    await this.db
      .insertInto('model_upload_sessions')
      .values({
        id: s.id,
        deployment_id: s.deploymentId,
        branch: s.branch,
        user_id: s.userId,
        expires_at: s.expiresAt,
      })
      .execute();
  }

  /** Drops sessions past their expiry, finished or not; their files cascade. */
  async sweepExpired() {
    await this.db.deleteFrom('model_upload_sessions').where('expires_at', '<', sql<Date>`now()`).execute();
  }

  /** The session row; `lock` takes FOR UPDATE so that parallel finishes queue behind each other. */
  session(id: string, deploymentId: number, lock = false) {
    const q = this.db
      .selectFrom('model_upload_sessions')
      .selectAll()
      .select(sql<boolean>`expires_at < now()`.as('expired'))
      .where('id', '=', id)
      .where('deployment_id', '=', deploymentId);
    return (lock ? q.forUpdate() : q).executeTakeFirst();
  }

  async putFile(sessionId: string, file: { path: string; content: string; hash: string }) {
    await this.db
      .insertInto('model_upload_files')
      .values({ session_id: sessionId, ...file })
      .onConflict((oc) =>
        oc.columns(['session_id', 'path']).doUpdateSet((eb) => ({
          content: eb.ref('excluded.content'),
          hash: eb.ref('excluded.hash'),
        })),
      )
      .execute();
  }

  async countFiles(sessionId: string): Promise<number> {
    const r = await this.db
      .selectFrom('model_upload_files')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('session_id', '=', sessionId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  files(sessionId: string) {
    return this.db
      .selectFrom('model_upload_files')
      .select(['path', 'content', 'hash'])
      .where('session_id', '=', sessionId)
      .orderBy('path')
      .execute();
  }

  /** Marks the session applied and drops its uploaded contents (the branch now holds them). */
  async finish(sessionId: string, lastHash: string) {
    await this.db
      .updateTable('model_upload_sessions')
      .set({ finished_at: new Date(), last_hash: lastHash })
      .where('id', '=', sessionId)
      .execute();
    await this.db.deleteFrom('model_upload_files').where('session_id', '=', sessionId).execute();
  }
}
