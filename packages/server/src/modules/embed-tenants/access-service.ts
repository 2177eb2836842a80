import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { type AccessContext, contentSubject } from '../permissions/access.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';
import { workbookView } from '../workbooks/service.ts';
import type { EmbedAccessRepository } from './access-repository.ts';
import type { EmbeddableDashboards, WorkbookLookup } from './ports.ts';
import type { AccessSource, EmbedAccessResponse, UpdateEmbedAccessBody } from './schemas.ts';
import type { EmbedTenantsService } from './service.ts';

export interface EmbedAccessDeps {
  db: Db;
  shares: EmbedAccessRepository;
  tenants: EmbedTenantsService;
  workbooks: WorkbookLookup;
  dashboards: EmbeddableDashboards;
  access: AccessResolver;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: Pick<AuditLog, 'record'>;
}

type Update = Static<typeof UpdateEmbedAccessBody>;

/**
 * Dashboard Embed Access (reference): a workbook's published dashboard shared read-only with one
 * embed tenant or with every embed user, plus its `allowEmbed` flag. A share is what lets a
 * creator-mode session of that tenant read the dashboard (modules/embed/dashboard-service.ts);
 * sessions of other embed tenants never see it.
 */
export class EmbedAccessService {
  constructor(private readonly deps: EmbedAccessDeps) {}

  /** Read access to the workbook; 404 when it is not in the deployment. */
  async get(principal: Principal, deploymentId: number, workbookId: number) {
    const { workbook } = await this.workbook(principal, deploymentId, workbookId, 'view');
    return this.view(workbook.id);
  }

  /** Exactly one target with an action, and/or `allowEmbed`; manage access to the workbook. */
  async update(principal: Principal, deploymentId: number, workbookId: number, body: Update) {
    const tenantName = body.embedTenantName ?? null;
    const all = body.allEmbedUsers === true;
    const targets = (tenantName === null ? 0 : 1) + (all ? 1 : 0);
    const problems = [];
    if (targets > 1)
      problems.push({ field: 'body/allEmbedUsers', message: 'cannot be combined with embedTenantName' });
    if (targets === 1 && body.action == null)
      problems.push({ field: 'body/action', message: 'is required with embedTenantName or allEmbedUsers' });
    if (targets === 0 && body.action != null)
      problems.push({ field: 'body/action', message: 'needs embedTenantName or allEmbedUsers: true' });
    if (targets === 0 && body.allowEmbed == null)
      problems.push({
        field: 'body',
        message: 'specifies no change: send a target with an action, or allowEmbed',
      });
    if (problems.length > 0) throw new ValidationError('The embed access change is not valid', problems);

    const { workbook } = await this.workbook(principal, deploymentId, workbookId, 'manage');
    const tenant =
      tenantName === null ? null : await this.deps.tenants.require(principal.tenantId, tenantName);
    const published = body.allowEmbed == null ? undefined : await this.deps.dashboards.current(workbook.id);
    if (body.allowEmbed != null && !published)
      throw new ValidationError(
        `Workbook ${workbookId} has no published dashboard`,
        [{ field: 'body/allowEmbed', message: 'needs a published dashboard' }],
        'not_published',
      );
    await this.deps.db.transaction().execute(async (trx) => {
      const before = await this.view(workbook.id, trx);
      if (published && body.allowEmbed != null)
        await this.deps.dashboards.setAllowEmbed(published.dashboard.id, body.allowEmbed, trx);
      if (targets === 1) {
        const embedTenantId = tenant?.id ?? null;
        if (body.action === 'read')
          await this.deps.shares.share(deploymentId, workbook.id, embedTenantId, trx);
        else await this.deps.shares.unshare(workbook.id, embedTenantId, trx);
      }
      await this.deps.audit.record(trx, principal, {
        action: 'embed_access.update',
        targetType: 'workbook',
        targetId: workbook.id,
        before: { deploymentId, ...before },
        after: { deploymentId, ...(await this.view(workbook.id, trx)) },
      });
    });
    return this.view(workbook.id);
  }

  /**
   * Reference `GET /deployments/{id}/embed-tenants/{name}/workbooks`: workbooks shared with the
   * tenant (`tenant`), with every embed user (`allEmbedUsers`), or either (no filter). Tessera
   * stores no folder shares with embed tenants, so `folder` lists none.
   */
  async tenantWorkbooks(
    principal: Principal,
    deploymentId: number,
    tenantName: string,
    query: PageQuery & { accessSource?: AccessSource },
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const tenant = await this.deps.tenants.require(principal.tenantId, tenantName);
    const window = pageWindow(query, 1);
    const source = query.accessSource;
    const rows: WorkbookWithOwner[] =
      source === 'folder'
        ? []
        : await this.deps.shares.workbooks(deploymentId, tenant.id, source ?? 'any', window);
    return toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => workbookView(r, ctx),
    );
  }

  private async workbook(
    principal: Principal,
    deploymentId: number,
    workbookId: number,
    level: 'view' | 'manage',
  ): Promise<{ workbook: WorkbookWithOwner; ctx: AccessContext }> {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const workbook = await this.deps.workbooks.find(deploymentId, workbookId);
    if (!workbook) throw new NotFoundError(`Workbook ${workbookId}`, 'workbook_not_found');
    ctx.require(ctx.item('WORKBOOK', workbook), level, contentSubject('WORKBOOK', workbookId));
    return { workbook, ctx };
  }

  private async view(workbookId: number, db?: Db): Promise<Static<typeof EmbedAccessResponse>> {
    // One after the other: a transaction runs one statement at a time.
    const published = await this.deps.dashboards.current(workbookId, db);
    const shares = await this.deps.shares.shares(workbookId, db);
    const all = shares.some((s) => s.embed_tenant_id === null);
    return {
      allowEmbed: published?.dashboard.allow_embed ?? false,
      allEmbedUsers: { enabled: all, action: all ? 'read' : 'none', groupId: null },
      tenants: shares.flatMap((s) =>
        s.embed_tenant_id === null
          ? []
          : [
              {
                embedTenantName: s.embed_tenant_name as string,
                groupId: s.embed_tenant_id,
                action: 'read' as const,
              },
            ],
      ),
    };
  }
}
