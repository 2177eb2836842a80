import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { Id } from '../deployments/schemas.ts';
import { PublicIdParams } from '../embed/schemas.ts';
import { nullable, strict } from '../workspace/common.ts';

/** The reference's body limits (`CreateEmbedDashboardCommentBody`). */
const Body = Type.String({ minLength: 1, maxLength: 10_000 });

/** Most mentions one comment may carry: enough for any conversation, bounded for the check. */
export const maxMentions = 50;

/**
 * Tessera's addition to the reference's bodies: who the body mentions, by id (the ids that
 * `mentionable-users` lists). An id outside that list is a 400 naming `mentions/<index>`.
 */
const Mentions = Type.Optional(
  Type.Array(Id, {
    maxItems: maxMentions,
    uniqueItems: true,
    description: 'Ids of users the body mentions, from `comments/mentionable-users`; Tessera only',
  }),
);

export const CreateCommentBody = Type.Object(
  {
    body: Body,
    parentId: Type.Optional(nullable(Id)),
    mentions: Mentions,
  },
  strict,
);

export const UpdateCommentBody = Type.Object({ body: Body, mentions: Mentions }, strict);

export const SetResolvedBody = Type.Object({ resolved: Type.Boolean() }, strict);

export const ThreadsListQuery = Type.Object({
  includeResolved: Type.Optional(nullable(Type.Boolean())),
  resolvedOnly: Type.Optional(nullable(Type.Boolean())),
  ...CursorQuery,
});

export const MentionableQuery = Type.Object({
  search: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
  ...CursorQuery,
});

const Timestamp = Type.String({ format: 'date-time' });

/** The reference's `EmbedDashboardCommentDto`, plus `mentions`. */
export const Comment = Type.Object({
  id: Type.Integer(),
  dashboardId: Type.String({ description: "The dashboard's publicId" }),
  body: Type.String({ description: 'Empty once the comment was deleted (`removedAt` set)' }),
  createdAt: Timestamp,
  editedAt: nullable(Timestamp),
  removedAt: nullable(Timestamp),
  userId: nullable(
    Type.Integer({ description: 'The author: an embed user id on embed routes, else a user id' }),
  ),
  isOwn: Type.Boolean(),
  mentions: Type.Array(Type.Integer()),
});

/** The reference's `EmbedDashboardCommentThreadDto`. */
export const Thread = Type.Object({
  root: Comment,
  replies: Type.Array(Comment),
  resolvedAt: nullable(Timestamp),
  resolvedBy: nullable(Type.Integer()),
});

export const ThreadsListResponse = Type.Object({ items: Type.Array(Thread), pageInfo: PageInfoSchema });

/** The reference's `EmbedMentionableUserDto`. */
export const MentionableUser = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: nullable(Type.String()),
  firstName: nullable(Type.String()),
});

export const MentionableListResponse = Type.Object({
  items: Type.Array(MentionableUser),
  pageInfo: PageInfoSchema,
});

export const EmbedCommentParams = Type.Object({ ...PublicIdParams.properties, commentId: Id });

export const WorkbookCommentsParams = Type.Object({ deploymentId: Id, workbookId: Id });
export const WorkbookCommentParams = Type.Object({ deploymentId: Id, workbookId: Id, commentId: Id });
