import type { Static } from 'typebox';
import type { DashboardCommentRow } from '../../db/schema.ts';
import type { Comment, Thread } from './schemas.ts';

/** Who reads a conversation: the view marks their own comments and names authors in their kind of id. */
export interface Reader {
  publicId: string;
  /** Embed routes name authors by embed user id; the account's routes by user id. */
  embed: boolean;
  me: number;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function authorOf(reader: Pick<Reader, 'embed'>, row: DashboardCommentRow): number | null {
  return reader.embed ? row.author_embed_user_id : row.author_user_id;
}

/** A deleted comment keeps its place with an empty body (the reference's `removedAt`). */
export function commentView(reader: Reader, row: DashboardCommentRow): Static<typeof Comment> {
  const author = authorOf(reader, row);
  const removed = row.removed_at !== null;
  return {
    id: row.id,
    dashboardId: reader.publicId,
    body: removed ? '' : row.body,
    createdAt: row.created_at.toISOString(),
    editedAt: iso(row.edited_at),
    removedAt: iso(row.removed_at),
    userId: author,
    isOwn: author !== null && author === reader.me,
    mentions: removed ? [] : row.mentions,
  };
}

export function threadView(
  reader: Reader,
  root: DashboardCommentRow,
  replies: DashboardCommentRow[],
): Static<typeof Thread> {
  return {
    root: commentView(reader, root),
    replies: replies.map((r) => commentView(reader, r)),
    resolvedAt: iso(root.resolved_at),
    resolvedBy: root.resolved_by,
  };
}
