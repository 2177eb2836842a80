import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import {
  type DashboardRenderConfig,
  type FailedWidget,
  renderDashboard,
  toPdf,
  toPng,
  type WidgetContent,
} from '../../render/index.ts';
import type { DashboardDataRepository } from '../dashboard-data/repository.ts';
import type { DashboardFilter, TimeGrain } from '../dashboard-data/schemas.ts';
import type { DashboardDataService } from '../dashboard-data/service.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { NotificationFormat } from './schemas.ts';
import {
  type ColumnFormats,
  defaultSpec,
  linesOf,
  numericRows,
  type RowsMeta,
  storedSpec,
  tableOf,
  textSpec,
} from './widget-content.ts';

/**
 * Whose security context the widgets' queries run under (issue: "under the security context of
 * the notification's owner, or of the embed user it is for"): an account user, whose content
 * access to the dashboard's workbook is checked as for any viewer, or an embed user with the
 * context a recipient or `renderAs` gives it, admitted by the embed rules (allowEmbed, or the
 * workbook shared with its embed tenant).
 */
export type RenderSubject =
  | { kind: 'user'; userId: number }
  | {
      kind: 'embed';
      embedUserId: number;
      embedTenantId: number | null;
      embedTenantName: string | null;
      externalId: string;
      securityContext: Record<string, unknown>;
    };

export interface RenderRequest {
  tenantId: number;
  deploymentId: number;
  dashboardPublicId: string;
  subject: RenderSubject;
  filters: Static<typeof DashboardFilter>[] | null;
  timeGrains: Static<typeof TimeGrain>[] | null;
  format: NotificationFormat;
  /** Also rasterise a PNG when the format is PDF (the inline preview of an email). */
  withPreview?: boolean;
}

export interface RenderedDashboardFile {
  format: NotificationFormat;
  contentType: 'image/png' | 'application/pdf';
  bytes: Buffer;
  /** A PNG of the same dashboard: the file itself for PNG, a preview for PDF when asked for. */
  png: Buffer | null;
  /** The SVG both files were drawn from. */
  svg: string;
  title: string;
  width: number;
  height: number;
  versionNumber: number;
  failedWidgets: FailedWidget[];
}

/** A render that cannot produce a file at all (no published version, no owner): the run fails. */
export class RenderError extends Error {}

export const renderWidth = 1200;

interface Widget {
  id?: unknown;
  position?: unknown;
  responsiveLayouts?: unknown;
  config?: { reportId?: unknown; text?: unknown; title?: unknown } | null;
}

/**
 * A published dashboard to PNG or PDF without a browser (DESIGN.md "Notifications and rendering"):
 * every widget's query through dashboard-data (the one path to the data, with its filters and
 * time grains and the subject's security context), each chart filled with its rows, laid out by
 * src/render. A widget whose query fails is drawn with its error and listed in `failedWidgets`.
 */
export class DashboardRenderer {
  constructor(
    private readonly deps: {
      dashboards: DashboardDataRepository;
      dashboardData: DashboardDataService;
      users: Pick<UsersRepository, 'find'>;
    },
  ) {}

  async render(request: RenderRequest): Promise<RenderedDashboardFile> {
    const found = await this.deps.dashboards.version(request.deploymentId, request.dashboardPublicId, null);
    if (!found) throw new RenderError(`Dashboard ${request.dashboardPublicId} has no published version`);
    const principal = await this.principal(request, found.dashboard.public_id);
    const config = found.version.config as Omit<DashboardRenderConfig, 'widgets'> & { widgets?: unknown };
    const widgets = ((config.widgets ?? []) as Widget[]).filter(
      (w): w is Widget & { id: string } => typeof w?.id === 'string' && typeof w.position === 'object',
    );
    const contents = await Promise.all(
      widgets.map(async (w) => [w.id, await this.widget(request, principal, found.version, w)] as const),
    );
    const title = config.title ?? found.version.title ?? 'Dashboard';
    const rendered = await renderDashboard({
      width: renderWidth,
      config: {
        title,
        description: config.description ?? found.version.description ?? null,
        layout: config.layout ?? null,
        theme: config.theme ?? null,
        widgets: widgets as DashboardRenderConfig['widgets'],
      },
      content: Object.fromEntries(contents),
    });
    const png = request.format === 'png' || request.withPreview ? toPng(rendered.svg) : null;
    const bytes = request.format === 'png' ? (png as Buffer) : await toPdf(rendered.svg, { title });
    return {
      format: request.format,
      contentType: request.format === 'png' ? 'image/png' : 'application/pdf',
      bytes,
      png,
      svg: rendered.svg,
      title,
      width: rendered.width,
      height: rendered.height,
      versionNumber: found.version.version_number,
      failedWidgets: rendered.failedWidgets,
    };
  }

  /** The caller dashboard-data sees: the subject, with no more than it could do itself. */
  private async principal(request: RenderRequest, publicId: string): Promise<Principal> {
    const s = request.subject;
    if (s.kind === 'user') {
      const user = await this.deps.users.find(request.tenantId, s.userId);
      if (!user || user.is_deactivated)
        throw new RenderError(
          `User ${s.userId}, whose security context renders the dashboard, is not active`,
        );
      return {
        tenantId: request.tenantId,
        userId: user.id,
        role: user.role,
        credentialId: 0,
        credentialKind: 'api',
        deploymentIds: null,
      };
    }
    return {
      tenantId: request.tenantId,
      userId: 0,
      role: 'viewer',
      credentialId: 0,
      credentialKind: 'embed',
      deploymentIds: [request.deploymentId],
      embed: {
        sessionId: 0,
        deploymentId: request.deploymentId,
        embedUserId: s.embedUserId,
        externalId: s.externalId,
        embedTenantId: s.embedTenantId,
        embedTenantName: s.embedTenantName,
        // Shares with the embed tenant count, as for the reference's on-behalf-of export.
        creatorMode: true,
        publicDashboardId: publicId,
        securityContext: s.securityContext,
      },
    };
  }

  private async widget(
    request: RenderRequest,
    principal: Principal,
    version: { version_number: number; id: number },
    w: Widget & { id: string },
  ): Promise<WidgetContent> {
    const reportId = w.config?.reportId;
    const configTitle = typeof w.config?.title === 'string' ? w.config.title : null;
    if (typeof reportId !== 'number') {
      if (typeof w.config?.text === 'string')
        return { title: configTitle ?? '', vegaSpec: textSpec(), rows: linesOf(w.config.text) };
      return { title: configTitle ?? w.id, error: 'This widget shows no report' };
    }
    const snapshot = await this.deps.dashboards.snapshot(version.id, reportId);
    const title = configTitle ?? snapshot?.title ?? snapshot?.name ?? w.id;
    try {
      const answer = await this.deps.dashboardData.widgetData(
        principal,
        request.deploymentId,
        request.dashboardPublicId,
        w.id,
        {
          filters: request.filters ?? [],
          timeGrains: request.timeGrains ?? [],
          versionNumber: version.version_number,
        },
      );
      const meta: RowsMeta = {
        annotation: (answer.annotation as RowsMeta['annotation']) ?? null,
        columns: answer.columns ?? null,
      };
      const rows = numericRows(answer.data, meta);
      const spec = storedSpec(snapshot?.spec) ?? defaultSpec(rows, meta);
      if (spec) return { title, vegaSpec: spec, rows };
      return { title, table: tableOf(rows, meta, columnFormats(snapshot?.preferences)) };
    } catch (error) {
      // A domain error's message is written for the caller (a bad filter, no access, a query
      // error); anything else may carry internals, which an image sent by email must not show.
      const message = error instanceof DomainError ? error.message : "The widget's query could not be run";
      return { title, error: message };
    }
  }
}

/** The report's `preferences.columnFormats` (stored as JSON, or as JSON text), or none. */
function columnFormats(preferences: unknown): ColumnFormats {
  let value = preferences;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  const formats = (value as { columnFormats?: unknown } | null)?.columnFormats;
  return formats !== null && typeof formats === 'object' && !Array.isArray(formats)
    ? (formats as ColumnFormats)
    : {};
}
