import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import type { Access } from '../../auth/principal.ts';
import { Success } from '../deployments/schemas.ts';
import { PublicIdParams } from '../embed/schemas.ts';
import {
  Comment,
  CreateCommentBody,
  EmbedCommentParams,
  MentionableListResponse,
  MentionableQuery,
  SetResolvedBody,
  Thread,
  ThreadsListQuery,
  ThreadsListResponse,
  UpdateCommentBody,
  WorkbookCommentParams,
  WorkbookCommentsParams,
} from './schemas.ts';
import type { CommentScope, CommentsService } from './service.ts';

/** The reference's comment operations, once per surface: what differs is how the caller's scope is found. */
interface Surface<P> {
  path: string;
  tags: string[];
  access: Access;
  /** operationId of the reference's operation, or Tessera's own name for the account surface. */
  ids: Record<'list' | 'create' | 'mentionable' | 'update' | 'remove' | 'resolve', string>;
  params: P;
  itemParams: typeof EmbedCommentParams | typeof WorkbookCommentParams;
  rules: string;
  scope: (comments: CommentsService, r: { principal: unknown; params: unknown }) => Promise<CommentScope>;
}

const embedSurface: Surface<typeof PublicIdParams> = {
  path: '/api/v1/embed/dashboard/:publicId/comments',
  tags: ['Embed'],
  access: { role: 'viewer', credential: 'embed', embed: 'read' },
  ids: {
    list: 'listDashboardComments',
    create: 'createDashboardComment',
    mentionable: 'listMentionableEmbedUsers',
    update: 'updateDashboardComment',
    remove: 'removeDashboardComment',
    resolve: 'setDashboardCommentResolved',
  },
  params: PublicIdParams,
  itemParams: EmbedCommentParams,
  rules:
    'Embed tokens only, whose session names an embed tenant (403 `embed_tenant_required`; API keys 403): the ' +
    "conversation is the tenant's own. The dashboard must be one the token reaches (as `GET /embed/dashboard/{publicId}`). " +
    'Authors edit, delete and resolve their own comments and threads only (403 `comment_not_yours`).',
  scope: (comments, r) =>
    comments.embedScope(principalOf(r as never), (r.params as { publicId: string }).publicId),
};

const workbookSurface: Surface<typeof WorkbookCommentsParams> = {
  path: '/api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/comments',
  tags: ['Workbooks'],
  access: { role: 'viewer' },
  ids: {
    list: 'listWorkbookDashboardComments',
    create: 'createWorkbookDashboardComment',
    mentionable: 'listMentionableWorkbookUsers',
    update: 'updateWorkbookDashboardComment',
    remove: 'removeWorkbookDashboardComment',
    resolve: 'setWorkbookDashboardCommentResolved',
  },
  params: WorkbookCommentsParams,
  itemParams: WorkbookCommentParams,
  rules:
    "Tessera's own: the Embed group's comment operations for account users, on the workbook's published dashboard " +
    '(404 `dashboard_not_found` before its first publish). View access to the workbook to read and comment; authors ' +
    'edit their own comments; authors and users with manage access to the workbook delete any comment and resolve ' +
    "any thread (403 `comment_not_yours`). The account's conversation is separate from every embed tenant's.",
  scope: (comments, r) => {
    const p = r.params as { deploymentId: number; workbookId: number };
    return comments.accountScope(principalOf(r as never), p.deploymentId, p.workbookId);
  },
};

/** Issue 25 item 4: comments on dashboards, with mentions and resolution. */
export const commentRoutes: FastifyPluginAsyncTypebox<{ comments: CommentsService }> = async (
  app,
  { comments },
) => {
  for (const s of [embedSurface, workbookSurface] as Surface<typeof PublicIdParams>[]) {
    const config = { access: s.access };
    const scope = (r: { principal: unknown; params: unknown }) => s.scope(comments, r);
    app.get(
      s.path,
      {
        schema: {
          tags: s.tags,
          operationId: s.ids.list,
          summary: 'List comment threads on a dashboard',
          description:
            'One page of threads (a root comment and its replies, oldest first), newest started first. Open threads ' +
            'by default; `includeResolved` adds resolved ones, `resolvedOnly` returns only those. A deleted comment ' +
            `keeps its place with an empty \`body\` and \`removedAt\` set. ${s.rules}`,
          params: s.params,
          querystring: ThreadsListQuery,
          response: { 200: ThreadsListResponse },
        },
        config,
      },
      async (r) => comments.list(await scope(r), r.query),
    );
    app.post(
      s.path,
      {
        schema: {
          tags: s.tags,
          operationId: s.ids.create,
          summary: 'Post a comment on a dashboard',
          description:
            'Starts a thread, or replies to one when `parentId` names a thread root; the author is the caller. ' +
            'Replying to a reply is 400; a `parentId` of another dashboard, a deleted thread or nothing is 404 ' +
            '`comment_not_found`. `mentions` (Tessera only) are ids from `mentionable-users`; any other is 400 naming ' +
            `\`body/mentions/<index>\`. ${s.rules}`,
          params: s.params,
          body: CreateCommentBody,
          response: { 200: Comment },
        },
        config,
      },
      async (r) => comments.create(await scope(r), r.body),
    );
    app.get(
      `${s.path}/mentionable-users`,
      {
        schema: {
          tags: s.tags,
          operationId: s.ids.mentionable,
          summary: 'List users mentionable in a dashboard comment',
          description:
            'One page ordered by username; `search` filters by username or email. For an embed token, the embed ' +
            "users of its embed tenant (their username is their externalId); for account users, the account's " +
            `active users who can view the workbook. ${s.rules}`,
          params: s.params,
          querystring: MentionableQuery,
          response: { 200: MentionableListResponse },
        },
        config,
      },
      async (r) => comments.mentionable(await scope(r), r.query),
    );
    app.patch(
      `${s.path}/:commentId`,
      {
        schema: {
          tags: s.tags,
          operationId: s.ids.update,
          summary: 'Edit a comment on a dashboard',
          description:
            "Replaces a comment's body (and `mentions`) and stamps `editedAt`. Author only (403); a comment not in " +
            `this conversation, or deleted, is 404. ${s.rules}`,
          params: s.itemParams,
          body: UpdateCommentBody,
          response: { 200: Comment },
        },
        config,
      },
      async (r) => comments.update(await scope(r), r.params.commentId, r.body),
    );
    app.delete(
      `${s.path}/:commentId`,
      {
        schema: {
          tags: s.tags,
          operationId: s.ids.remove,
          summary: 'Delete a comment on a dashboard',
          description:
            'Soft-deletes a comment. Deleting a thread root takes its replies with it; deleting a reply re-derives ' +
            `its thread's last activity. ${s.rules}`,
          params: s.itemParams,
          response: { 200: Success },
        },
        config,
      },
      async (r) => comments.remove(await scope(r), r.params.commentId),
    );
    app.post(
      `${s.path}/:commentId/resolve`,
      {
        schema: {
          tags: s.tags,
          operationId: s.ids.resolve,
          summary: 'Resolve or re-open a comment thread',
          description:
            "Marks a thread resolved (`resolvedAt`, `resolvedBy`: the caller's id) or re-opens it. Threads only: a " +
            "reply's id is 400. A thread whose root was deleted while replies survive stays resolvable. " +
            s.rules,
          params: s.itemParams,
          body: SetResolvedBody,
          response: { 200: Thread },
        },
        config,
      },
      async (r) => comments.setResolved(await scope(r), r.params.commentId, r.body.resolved),
    );
  }
};
