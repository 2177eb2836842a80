import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DashboardCommentRow } from '../../db/schema.ts';
import { cursorId, type PageWindow } from '../../pagination/page.ts';

/** One conversation: a dashboard's comments in one partition (an embed tenant's, or null: the account's). */
export interface Conversation {
  dashboardId: number;
  embedTenantId: number | null;
}

export interface NewComment {
  parentId: number | null;
  authorUserId: number | null;
  authorEmbedUserId: number | null;
  body: string;
  mentions: number[];
}

export type ThreadFilter = 'open' | 'all' | 'resolved';

/** `dashboard_comments` (migration 0030); plain Kysely, no rules. */
export class CommentsRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  private inConversation(c: Conversation, db: Db) {
    const q = db
      .selectFrom('dashboard_comments as c')
      .selectAll('c')
      .where('c.dashboard_id', '=', c.dashboardId);
    return c.embedTenantId === null
      ? q.where('c.embed_tenant_id', 'is', null)
      : q.where('c.embed_tenant_id', '=', c.embedTenantId);
  }

  /**
   * Thread roots, newest started first (keyset on the id, descending). A root deleted with its
   * whole thread is gone; one whose replies survive still heads its thread.
   */
  roots(c: Conversation, filter: ThreadFilter, window: PageWindow): Promise<DashboardCommentRow[]> {
    let q = this.inConversation(c, this.db)
      .where('c.parent_id', 'is', null)
      .where((eb) =>
        eb.or([
          eb('c.removed_at', 'is', null),
          eb.exists(
            eb
              .selectFrom('dashboard_comments as r')
              .select('r.id')
              .whereRef('r.parent_id', '=', 'c.id')
              .where('r.removed_at', 'is', null),
          ),
        ]),
      )
      .orderBy('c.id', 'desc')
      .limit(window.size + 1);
    if (filter === 'open') q = q.where('c.resolved_at', 'is', null);
    if (filter === 'resolved') q = q.where('c.resolved_at', 'is not', null);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('c.id', '<', cursorId(window.after));
    return q.execute();
  }

  /** The replies of these roots, oldest first. */
  replies(rootIds: number[], db: Db = this.db): Promise<DashboardCommentRow[]> {
    if (rootIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('dashboard_comments')
      .selectAll()
      .where('parent_id', 'in', rootIds)
      .orderBy('id')
      .execute();
  }

  /** A comment of the conversation, locked for update when `db` is a transaction. */
  find(c: Conversation, id: number, db: Db = this.db): Promise<DashboardCommentRow | undefined> {
    return this.inConversation(c, db).where('c.id', '=', id).forUpdate().executeTakeFirst();
  }

  insert(c: Conversation, comment: NewComment, db: Db = this.db): Promise<DashboardCommentRow> {
    return db
      .insertInto('dashboard_comments')
      .values({
        dashboard_id: c.dashboardId,
        embed_tenant_id: c.embedTenantId,
        parent_id: comment.parentId,
        author_user_id: comment.authorUserId,
        author_embed_user_id: comment.authorEmbedUserId,
        body: comment.body,
        mentions: JSON.stringify(comment.mentions),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  updateBody(id: number, body: string, mentions: number[], db: Db): Promise<DashboardCommentRow> {
    return db
      .updateTable('dashboard_comments')
      .set({ body, mentions: JSON.stringify(mentions), edited_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Soft-deletes a comment; a root takes its replies with it. */
  async remove(id: number, db: Db): Promise<void> {
    await db
      .updateTable('dashboard_comments')
      .set({ removed_at: sql<Date>`now()` })
      .where((eb) => eb.or([eb('id', '=', id), eb('parent_id', '=', id)]))
      .where('removed_at', 'is', null)
      .execute();
  }

  /** A thread's last activity: its newest surviving message, or its start when none survives. */
  async rederiveActivity(rootId: number, db: Db): Promise<void> {
    await db
      .updateTable('dashboard_comments as t')
      .set({
        last_activity_at: sql<Date>`coalesce((select max(r.created_at) from dashboard_comments r
          where r.parent_id = t.id and r.removed_at is null), t.created_at)`,
      })
      .where('t.id', '=', rootId)
      .execute();
  }

  async touchActivity(rootId: number, db: Db): Promise<void> {
    await db
      .updateTable('dashboard_comments')
      .set({ last_activity_at: sql<Date>`now()` })
      .where('id', '=', rootId)
      .execute();
  }

  setResolved(id: number, resolvedBy: number | null, db: Db): Promise<DashboardCommentRow> {
    return db
      .updateTable('dashboard_comments')
      .set({ resolved_at: resolvedBy === null ? null : sql<Date>`now()`, resolved_by: resolvedBy })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
