import type { SecurityContext } from '@tessera/semantic';
import type { Static } from 'typebox';
import { canReachDeployment, type EmbedGrant, type Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { DashboardRow } from '../../db/schema.ts';
import { ForbiddenError, NotFoundError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import type { EmbedDashboardGate } from '../dashboard-data/security-context.ts';
import type { EmbedViewer } from '../dashboard-data/viewer.ts';
import { publishedView } from '../dashboards/view.ts';
import { type AccessSubject, dashboardSubject } from '../permissions/access.ts';
import { tenantSeesOwner } from '../permissions/owner-privacy.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { EmbedDashboardsRepository, EmbeddableRow } from './dashboards-repository.ts';
import type { DashboardViews, EmbeddableDashboards, EmbedShares, WorkbookLookup } from './ports.ts';
import type { EmbeddableDashboard } from './schemas.ts';

/** Who would read a dashboard through embedding: a token's grant, or a session being generated. */
export type EmbedTarget = Pick<
  EmbedGrant,
  'deploymentId' | 'publicDashboardId' | 'creatorMode' | 'embedTenantId'
>;

export interface EmbedDashboardsDeps {
  db: Db;
  embeddable: EmbedDashboardsRepository;
  dashboards: EmbeddableDashboards;
  workbooks: WorkbookLookup;
  shares: EmbedShares;
  access: AccessResolver;
  /** Issue 25 item 5: the view log that `open` writes to; absent, opens are not recorded. */
  views?: DashboardViews;
}

/**
 * Which dashboards embedding reaches (the reference's `GET /embed/dashboard/{publicId}`): a
 * published dashboard of the token's deployment, the one named by `publicDashboardId` if the
 * session named one, with "Allow signed embedding" (`allowEmbed`) on; a creator-mode session also
 * reaches dashboards shared with its embed tenant or with every embed user (Dashboard Embed
 * Access), as the reference exempts those from the flag. Another deployment's or another
 * dashboard's is "not visible" (404); a visible one that may not be embedded is 403.
 */
export class EmbedDashboardsService implements EmbedDashboardGate {
  constructor(private readonly deps: EmbedDashboardsDeps) {}

  async check(target: EmbedTarget, dashboard: DashboardRow, viewer?: AccessSubject): Promise<void> {
    const visible =
      dashboard.deployment_id === target.deploymentId &&
      (target.publicDashboardId === null || target.publicDashboardId === dashboard.public_id);
    if (!visible) throw new NotFoundError(`Dashboard ${dashboard.public_id}`, 'dashboard_not_found');
    const place = await this.tenantSpacePlace(target, dashboard, viewer);
    if (place === 'granted') return;
    if (dashboard.allow_embed) return;
    // Tenant content that this embed user was never granted, or no longer is (a share removed), is
    // as unknown to it as a missing dashboard: 404, as every other read of it (access.ts `hides`).
    if (place === 'not-granted')
      throw new NotFoundError(`Dashboard ${dashboard.public_id}`, 'dashboard_not_found');
    if (target.creatorMode && (await this.deps.shares.isShared(dashboard, target.embedTenantId))) return;
    throw new ForbiddenError(
      `Dashboard ${dashboard.public_id} does not allow embedding (allowEmbed is false)`,
      'embedding_not_allowed',
    );
  }

  /**
   * A dashboard of a workbook in an embed tenant's creator-mode space (spec 4.3 rule 2) is not
   * visible outside that tenant (404, whatever its `allowEmbed`); inside it, an embed user reads it
   * when the workbook is its own or shared with one of its tenant groups (`granted`), and otherwise
   * only through `allowEmbed` (`not-granted`). Null: not tenant content, or no viewer to ask about
   * (a session being generated), where `allowEmbed` decides, as for any dashboard.
   */
  private async tenantSpacePlace(
    target: EmbedTarget,
    dashboard: DashboardRow,
    viewer?: AccessSubject,
  ): Promise<'granted' | 'not-granted' | null> {
    const workbook = await this.deps.workbooks.find(dashboard.deployment_id, dashboard.workbook_id);
    if (!workbook || workbook.embed_tenant_id === null) return null;
    if (workbook.embed_tenant_id !== target.embedTenantId)
      throw new NotFoundError(`Dashboard ${dashboard.public_id}`, 'dashboard_not_found');
    if (!viewer) return null;
    const ctx = await this.deps.access.resolve(viewer, dashboard.deployment_id);
    return ctx.item('WORKBOOK', workbook) !== null ? 'granted' : 'not-granted';
  }

  /** The published dashboard with this public id in the account; 404 otherwise. */
  async require(tenantId: number, publicId: string): Promise<DashboardRow> {
    const dashboard = await this.deps.embeddable.published(tenantId, publicId);
    if (!dashboard) throw new NotFoundError(`Dashboard ${publicId}`, 'dashboard_not_found');
    return dashboard;
  }

  /** The dashboard-data hook: an embed token reads widget rows under the context its session baked in. */
  async admit(viewer: EmbedViewer, dashboard: DashboardRow): Promise<SecurityContext> {
    await this.check(viewer.embed, dashboard, viewer);
    return viewer.embed.securityContext;
  }

  /**
   * Reference `GET /embed/dashboard/{publicId}`, as the viewer (web app or embed page) opens the
   * dashboard: the open is recorded for Usage Analytics (issue 25 item 5) once access is granted,
   * without waiting for the write.
   */
  open(principal: Principal, publicId: string) {
    return this.get(principal, publicId, (dashboardId) =>
      this.deps.views?.record({
        tenantId: principal.tenantId,
        dashboardId,
        userId: principal.embed || principal.userId <= 0 ? null : principal.userId,
        embedUserId: principal.embed?.embedUserId ?? null,
      }),
    );
  }

  /** The published dashboard, for an embed token or an account user with view access; `opened` hears of its id. */
  async get(principal: Principal, publicId: string, opened?: (dashboardId: number) => void) {
    const dashboard = await this.require(principal.tenantId, publicId);
    if (principal.embed) await this.check(principal.embed, dashboard, principal);
    else await this.requireContent(principal, dashboard, 'view');
    const published = await this.deps.dashboards.current(dashboard.workbook_id);
    if (!published) throw new NotFoundError(`Dashboard ${publicId}`, 'dashboard_not_found');
    opened?.(dashboard.id);
    const view = publishedView(published);
    if (!principal.embed) return view;
    // The publisher is an owner identity: an embed user sees it only within its tenant's space.
    const workbook = await this.deps.workbooks.find(dashboard.deployment_id, dashboard.workbook_id);
    if (tenantSeesOwner(principal.embed.embedTenantId, workbook?.embed_tenant_id)) return view;
    return { ...view, createdBy: null };
  }

  /** Reference `PATCH /embed/dashboard/{publicId}`: the "Allow signed embedding" flag (edit access, as publishing). */
  async setAllowEmbed(principal: Principal, publicId: string, allowEmbed: boolean) {
    const dashboard = await this.require(principal.tenantId, publicId);
    await this.requireContent(principal, dashboard, 'edit');
    await this.deps.dashboards.setAllowEmbed(dashboard.id, allowEmbed, this.deps.db);
    return { publicId, allowEmbed };
  }

  /** `GET /embed`: published dashboards with `allowEmbed`, within the credential's deployments. */
  async list(principal: Principal, query: PageQuery & { deploymentId?: number }) {
    const window = pageWindow(query, 1);
    let scope = principal.deploymentIds;
    if (query.deploymentId !== undefined)
      scope = canReachDeployment(principal, query.deploymentId) ? [query.deploymentId] : [];
    const rows = await this.deps.embeddable.embeddable(principal.tenantId, scope, window);
    return toPage(rows, window, (r) => [r.id], embeddableView);
  }

  private async requireContent(principal: Principal, dashboard: DashboardRow, level: 'view' | 'edit') {
    if (!canReachDeployment(principal, dashboard.deployment_id))
      throw new ForbiddenError(
        `This credential is not scoped to deployment ${dashboard.deployment_id}`,
        'deployment_out_of_scope',
      );
    const ctx = await this.deps.access.resolve(principal, dashboard.deployment_id);
    const workbook = await this.deps.workbooks.find(dashboard.deployment_id, dashboard.workbook_id);
    if (!workbook) throw new NotFoundError(`Dashboard ${dashboard.public_id}`, 'dashboard_not_found');
    ctx.require(ctx.item('WORKBOOK', workbook), level, dashboardSubject(dashboard.public_id, workbook.id));
  }
}

function embeddableView(r: EmbeddableRow): Static<typeof EmbeddableDashboard> {
  return {
    id: r.id,
    publicId: r.public_id,
    deploymentId: r.deployment_id,
    workbookId: r.workbook_id,
    allowEmbed: r.allow_embed,
    title: r.title,
    description: r.description,
    versionNumber: r.version_number,
  };
}
