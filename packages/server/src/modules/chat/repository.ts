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

  /**
   * A suspended run continues (reference chat-api.yaml "Suspensions"): the frames that ended its
   * stream (`__suspended__` and what followed it) leave the log, which the run then extends.
   * Returns the log kept, and the usage the removed `__usage__` frame reported.
   */
  async resumeRun(id: number, db: Db): Promise<{ lines: { seq: number; line: string }[]; usage?: string }> {
    const lines = await this.lines(id, 0, db);
    const idOf = (l: { line: string }) => (JSON.parse(l.line) as { id?: unknown }).id;
    const cut = lines.findIndex((l) => idOf(l) === '__suspended__');
    const end = cut === -1 ? lines.length : cut;
    const usage = lines.slice(end).find((l) => idOf(l) === '__usage__')?.line;
    if (end < lines.length)
      await db
        .deleteFrom('chat_run_lines')
        .where('run_id', '=', id)
        .where('seq', '>=', lines[end].seq)
        .execute();
    await db
      .updateTable('chat_runs')
      .set({ status: 'running', finished_at: null, stop_requested: false, heartbeat_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    return { lines: lines.slice(0, end), ...(usage ? { usage } : {}) };
  }

  /** A run ends; only a running one (a run the sweeper suspended meanwhile stays suspended). */
  async finishRun(id: number, status: ChatRunStatus, db: Db = this.db): Promise<void> {
    await db
      .updateTable('chat_runs')
      .set({ status, finished_at: sql`now()` })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  /** A suspended run that will not resume ends as aborted (a new message, or 24 hours passed). */
  async endSuspended(id: number, db: Db = this.db): Promise<void> {
    await db
      .updateTable('chat_runs')
      .set({ status: 'aborted' })
      .where('id', '=', id)
      .where('status', '=', 'suspended')
      .execute();
  }

  async appendLine(runId: number, seq: number, line: string, db: Db = this.db): Promise<void> {
    await db.insertInto('chat_run_lines').values({ run_id: runId, seq, line }).execute();
  }

  lines(runId: number, fromSeq = 0, db: Db = this.db): Promise<{ seq: number; line: string }[]> {
    return db
      .selectFrom('chat_run_lines')
      .select(['seq', 'line'])
      .where('run_id', '=', runId)
      .where('seq', '>=', fromSeq)
      .orderBy('seq')
      .execute();
  }

  /** Renews the lease of the runs this process executes; tells which the abort endpoint asked to stop. */
  async renewLeases(ids: number[]): Promise<{ id: number; stop_requested: boolean }[]> {
    if (ids.length === 0) return [];
    return this.db
      .updateTable('chat_runs')
      .set({ heartbeat_at: sql`now()` })
      .where('id', 'in', ids)
      .where('status', '=', 'running')
      .returning(['id', 'stop_requested'])
      .execute();
  }

  /**
   * Runs left `running` by a process that died (their lease lapsed) become suspended, each with
   * `__suspended__` and `__usage__` appended to its log so that followers see the stream end.
   * Rows are taken with SKIP LOCKED: replicas sweeping at once suspend each run once.
   */
  async suspendLapsed(
    leaseSeconds: number,
    lines: (messageId: string) => string[],
    limit = 100,
  ): Promise<{ runId: number; threadId: string; lines: { seq: number; line: string }[] }[]> {
    return this.transaction(async (trx) => {
      const lapsed = await trx
        .selectFrom('chat_runs')
        .select(['id', 'message_id', 'thread_id'])
        .where('status', '=', 'running')
        .where((eb) =>
          eb.or([
            eb('heartbeat_at', 'is', null),
            eb('heartbeat_at', '<', sql<Date>`now() - make_interval(secs => ${leaseSeconds})`),
          ]),
        )
        .orderBy('id')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      const suspended = [];
      for (const run of lapsed) {
        const last = await trx
          .selectFrom('chat_run_lines')
          .select(sql<number | null>`max(seq)`.as('seq'))
          .where('run_id', '=', run.id)
          .executeTakeFirst();
        let seq = (last?.seq ?? -1) + 1;
        const written = lines(run.message_id).map((line) => ({ seq: seq++, line }));
        for (const w of written) await this.appendLine(run.id, w.seq, w.line, trx);
        await trx
          .updateTable('chat_runs')
          .set({ status: 'suspended', finished_at: sql`now()` })
          .where('id', '=', run.id)
          .execute();
        suspended.push({ runId: run.id, threadId: run.thread_id, lines: written });
      }
      return suspended;
    });
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
