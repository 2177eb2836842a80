import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ChatRunRow, ChatRunStatus, ChatThreadRow } from '../../db/schema.ts';

/** Who owns a thread: an external chat user (`embed_users`) or an account user. */
export type ThreadOwner = { embedUserId: number } | { userId: number };

/** Chat threads, runs and their line logs (migration 0009-chat); plain Kysely, no rules. */
export class ChatRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async insertThread(id: string, tenantId: number, agentId: number, owner: ThreadOwner, db: Db = this.db) {
    await db
      .insertInto('chat_threads')
      .values({
        id,
        tenant_id: tenantId,
        agent_id: agentId,
        embed_user_id: 'embedUserId' in owner ? owner.embedUserId : null,
        user_id: 'userId' in owner ? owner.userId : null,
      })
      .execute();
  }

  /** The thread, locked until the transaction ends: one request at a time decides its runs. */
  lockThread(tenantId: number, agentId: number, id: string, db: Db): Promise<ChatThreadRow | undefined> {
    return db
      .selectFrom('chat_threads')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('agent_id', '=', agentId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  findThread(tenantId: number, agentId: number, id: string): Promise<ChatThreadRow | undefined> {
    return this.db
      .selectFrom('chat_threads')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('agent_id', '=', agentId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  runs(threadId: string, db: Db = this.db): Promise<ChatRunRow[]> {
    return db.selectFrom('chat_runs').selectAll().where('thread_id', '=', threadId).orderBy('id').execute();
  }

  run(id: number): Promise<ChatRunRow | undefined> {
    return this.db.selectFrom('chat_runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insertRun(
    threadId: string,
    messageId: string,
    input: string,
    context: Record<string, unknown>,
    db: Db,
  ): Promise<ChatRunRow> {
    return db
      .insertInto('chat_runs')
      .values({ thread_id: threadId, message_id: messageId, input, context: JSON.stringify(context) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async requestStop(id: number): Promise<void> {
    await this.db.updateTable('chat_runs').set({ stop_requested: true }).where('id', '=', id).execute();
  }

  /** A suspended run starts again: its partial log is dropped and it runs once more. */
  async restartRun(id: number, db: Db): Promise<void> {
    await db.deleteFrom('chat_run_lines').where('run_id', '=', id).execute();
    await db
      .updateTable('chat_runs')
      .set({ status: 'running', finished_at: null, stop_requested: false })
      .where('id', '=', id)
      .execute();
  }

  async finishRun(id: number, status: ChatRunStatus, db: Db = this.db): Promise<void> {
    await db
      .updateTable('chat_runs')
      .set({ status, finished_at: status === 'running' ? null : sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  async appendLine(runId: number, seq: number, line: string): Promise<void> {
    await this.db.insertInto('chat_run_lines').values({ run_id: runId, seq, line }).execute();
  }

  lines(runId: number, fromSeq = 0): Promise<{ seq: number; line: string }[]> {
    return this.db
      .selectFrom('chat_run_lines')
      .select(['seq', 'line'])
      .where('run_id', '=', runId)
      .where('seq', '>=', fromSeq)
      .orderBy('seq')
      .execute();
  }

  /** Runs a process left running when it stopped without suspending them (spec: `__suspended__`). */
  async suspendRunning(runIds: number[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.db
      .updateTable('chat_runs')
      .set({ status: 'suspended', finished_at: sql`now()` })
      .where('id', 'in', runIds)
      .where('status', '=', 'running')
      .execute();
  }

  /** Non-ephemeral external chat users of the account (spec 5 rule 4, spec 8). */
  async permanentExternalUsers(tenantId: number, db: Db = this.db): Promise<number> {
    const row = await db
      .selectFrom('embed_users')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where('embed_tenant_id', 'is', null)
      .where('expires_at', 'is', null)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  findExternalUser(tenantId: number, externalId: string, db: Db = this.db) {
    return db
      .selectFrom('embed_users')
      .select(['id', 'expires_at'])
      .where('tenant_id', '=', tenantId)
      .where('embed_tenant_id', 'is', null)
      .where('external_id', '=', externalId)
      .executeTakeFirst();
  }

  findAccountUser(tenantId: number, login: string) {
    return this.db
      .selectFrom('users')
      .select(['id', 'is_deactivated'])
      .where('tenant_id', '=', tenantId)
      .where((eb) => eb.or([eb(sql`lower(email)`, '=', login), eb(sql`lower(username)`, '=', login)]))
      .executeTakeFirst();
  }
}
