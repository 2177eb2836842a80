import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { DashboardCommentRow } from '../../db/schema.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { keysetCursor } from '../../pagination/keyset.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { EmbedDashboardsService } from '../embed/dashboard-service.ts';
import { contentSubject } from '../permissions/access.ts';
import { atLeast } from '../permissions/levels.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { AudienceRepository, MentionableRow, WorkbookPlace } from './audience-repository.ts';
import type { CommentedWorkbooks, PublishedDashboards } from './ports.ts';
import type { CommentsRepository, Conversation, ThreadFilter } from './repository.ts';
import { authorOf, commentView, type Reader, threadView } from './views.ts';

export interface CommentsDeps {
  comments: CommentsRepository;
  audience: AudienceRepository;
  embedDashboards: EmbedDashboardsService;
  dashboards: PublishedDashboards;
  workbooks: CommentedWorkbooks;
  access: AccessResolver;
}

/** One caller in one conversation, with what it may do there beyond its own comments. */
export interface CommentScope extends Reader {
  tenantId: number;
  conversation: Conversation;
  place: WorkbookPlace;
  /** Resolves and deletes anyone's comments: manage access to the workbook (account users only). */
  manages: boolean;
}

export interface ThreadsQuery extends PageQuery {
  includeResolved?: boolean | null;
  resolvedOnly?: boolean | null;
}

const notFound = (id: number) => new NotFoundError(`Comment ${id}`, 'comment_not_found');

/**
 * Comments on a dashboard (issue 25 item 4; the reference's Embed comment operations). Embed users
 * talk inside their embed tenant's partition and may only change their own comments, as the
 * reference says; account users talk in the account's partition of a dashboard they can view, and
 * whoever manages the workbook may also resolve or delete anyone's (the reference's console
 * surface lets workbook editors resolve; deleting others' is Tessera's moderation).
 */
export class CommentsService {
  constructor(private readonly deps: CommentsDeps) {}

  /** An embed token: its session must name an embed tenant and reach the dashboard (embed/dashboard-service.ts). */
  async embedScope(principal: Principal, publicId: string): Promise<CommentScope> {
    const grant = principal.embed;
    if (!grant)
      throw new ForbiddenError('Only an embed token may call this API', 'credential_kind_not_allowed');
    if (grant.embedTenantId === null)
      throw new ForbiddenError(
        'Comments live inside an embed tenant: generate the session with an embedTenantName',
        'embed_tenant_required',
      );
    const dashboard = await this.deps.embedDashboards.require(principal.tenantId, publicId);
    await this.deps.embedDashboards.check(grant, dashboard, principal);
    return {
      tenantId: principal.tenantId,
      publicId,
      embed: true,
      me: grant.embedUserId,
      conversation: { dashboardId: dashboard.id, embedTenantId: grant.embedTenantId },
      place: { deploymentId: dashboard.deployment_id, workbookId: dashboard.workbook_id, folderIds: [] },
      manages: false,
    };
  }

  /** An account user on a workbook's published dashboard: view access to comment, manage to moderate. */
  async accountScope(principal: Principal, deploymentId: number, workbookId: number): Promise<CommentScope> {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.deps.workbooks.find(deploymentId, workbookId);
    const subject = contentSubject('WORKBOOK', workbookId);
    if (!workbook) throw subject.missing();
    const level = ctx.item('WORKBOOK', workbook);
    ctx.require(level, 'view', subject);
    const published = await this.deps.dashboards.current(workbookId);
    if (!published)
      throw new NotFoundError(
        `Dashboard of workbook ${workbookId} (it was never published)`,
        'dashboard_not_found',
      );
    const folderIds =
      workbook.folder_id === null ? [] : ctx.tree.ancestors(workbook.folder_id).map((f) => f.id);
    return {
      tenantId: principal.tenantId,
      publicId: published.dashboard.public_id,
      embed: false,
      me: principal.userId,
      conversation: { dashboardId: published.dashboard.id, embedTenantId: null },
      place: { deploymentId, workbookId, folderIds },
      manages: atLeast(level, 'manage'),
    };
  }

  /** Threads newest started first; open ones unless `includeResolved`, or only resolved ones with `resolvedOnly`. */
  async list(scope: CommentScope, query: ThreadsQuery) {
    const filter: ThreadFilter = query.resolvedOnly ? 'resolved' : query.includeResolved ? 'all' : 'open';
    const window = pageWindow(query, 1);
    const roots = await this.deps.comments.roots(scope.conversation, filter, window);
    const page = toPage(
      roots,
      window,
      (r) => [r.id],
      (r) => r,
    );
    const replies = await this.deps.comments.replies(page.items.map((r) => r.id));
    return {
      items: page.items.map((root) =>
        threadView(
          scope,
          root,
          replies.filter((r) => r.parent_id === root.id),
        ),
      ),
      pageInfo: page.pageInfo,
    };
  }

  /** Starts a thread, or replies to a thread root (one level deep). */
  async create(scope: CommentScope, input: { body: string; parentId?: number | null; mentions?: number[] }) {
    const mentions = await this.checkMentions(scope, input.mentions);
    return this.deps.comments.transaction(async (trx) => {
      const parentId = input.parentId ?? null;
      if (parentId !== null) {
        const parent = await this.deps.comments.find(scope.conversation, parentId, trx);
        if (!parent || parent.removed_at !== null) throw notFound(parentId);
        if (parent.parent_id !== null)
          throw new ValidationError('Replies are one level deep', [
            { field: 'body/parentId', message: 'names a reply; reply to its thread root instead' },
          ]);
        await this.deps.comments.touchActivity(parentId, trx);
      }
      const row = await this.deps.comments.insert(
        scope.conversation,
        {
          parentId,
          authorUserId: scope.embed ? null : scope.me,
          authorEmbedUserId: scope.embed ? scope.me : null,
          body: input.body,
          mentions,
        },
        trx,
      );
      return commentView(scope, row);
    });
  }

  /** Replaces the body (and mentions) of one's own comment, stamping `editedAt`. */
  async update(scope: CommentScope, id: number, input: { body: string; mentions?: number[] }) {
    const mentions = await this.checkMentions(scope, input.mentions);
    return this.deps.comments.transaction(async (trx) => {
      const row = await this.live(scope, id, trx);
      if (authorOf(scope, row) !== scope.me)
        throw new ForbiddenError(`Comment ${id} is another user's`, 'comment_not_yours');
      return commentView(scope, await this.deps.comments.updateBody(id, input.body, mentions, trx));
    });
  }

  /** Soft-deletes a comment (a root with its replies); a reply's thread re-derives its last activity. */
  async remove(scope: CommentScope, id: number) {
    await this.deps.comments.transaction(async (trx) => {
      const row = await this.live(scope, id, trx);
      if (authorOf(scope, row) !== scope.me && !scope.manages)
        throw new ForbiddenError(`Comment ${id} is another user's`, 'comment_not_yours');
      await this.deps.comments.remove(id, trx);
      if (row.parent_id !== null) await this.deps.comments.rederiveActivity(row.parent_id, trx);
    });
    return { success: true };
  }

  /** Resolves or re-opens a thread: its starter, or (account users) a manager of the workbook. */
  async setResolved(scope: CommentScope, id: number, resolved: boolean) {
    return this.deps.comments.transaction(async (trx) => {
      const root = await this.deps.comments.find(scope.conversation, id, trx);
      if (!root) throw notFound(id);
      if (root.parent_id !== null)
        throw new ValidationError('Only a thread root is resolved', [
          { field: 'params/commentId', message: 'names a reply; resolve its thread root instead' },
        ]);
      const replies = await this.deps.comments.replies([id], trx);
      // A root deleted with its whole thread is gone; one whose replies survive stays resolvable.
      if (root.removed_at !== null && replies.every((r) => r.removed_at !== null)) throw notFound(id);
      if (authorOf(scope, root) !== scope.me && !scope.manages)
        throw new ForbiddenError(`Thread ${id} was started by another user`, 'comment_not_yours');
      const updated = await this.deps.comments.setResolved(id, resolved ? scope.me : null, trx);
      return threadView(scope, updated, replies);
    });
  }

  /** Who a comment here may mention: the embed tenant's users, or the account users who can see the dashboard. */
  async mentionable(scope: CommentScope, query: PageQuery & { search?: string | null }) {
    const window = pageWindow(query, 2);
    const rows = await this.deps.audience.list(
      scope.tenantId,
      scope.conversation.embedTenantId,
      scope.place,
      query.search ?? undefined,
      window,
    );
    return toPage(rows, window, keysetCursor, mentionableView);
  }

  private async live(scope: CommentScope, id: number, db: Db): Promise<DashboardCommentRow> {
    const row = await this.deps.comments.find(scope.conversation, id, db);
    if (!row || row.removed_at !== null) throw notFound(id);
    return row;
  }

  /** Every mentioned id must be someone `mentionable` lists: 400 naming each that is not. */
  private async checkMentions(scope: CommentScope, mentions: number[] = []): Promise<number[]> {
    const known = await this.deps.audience.members(
      scope.tenantId,
      scope.conversation.embedTenantId,
      scope.place,
      mentions,
    );
    const problems = mentions.flatMap((id, i) =>
      known.has(id) ? [] : [{ field: `body/mentions/${i}`, message: `user ${id} cannot be mentioned here` }],
    );
    if (problems.length > 0) throw new ValidationError('Mentions name unknown users', problems);
    return mentions;
  }
}

function mentionableView(row: MentionableRow) {
  return { id: row.id, username: row.username, email: row.email, firstName: row.first_name };
}
