import {
  preparedSpec,
  readDashboardConfig,
  shownGrains,
  stackTabs,
  type Widget,
  widgetReportId,
  widgetText,
  widgetTitle,
  widgetTitleAtGrains,
} from '@tessera/dashboard';
import type { Static } from 'typebox';
import type { ReportSnapshotRow } from '../../db/schema.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import type { FailedWidget, WidgetContent } from '../../render/index.ts';
import type { DashboardVersion } from '../dashboard-data/records.ts';
import type { DashboardFilter, TimeGrain } from '../dashboard-data/schemas.ts';
import type { DashboardDataService, OpenedDashboard } from '../dashboard-data/service.ts';
import { embedViewer, type Viewer } from '../dashboard-data/viewer.ts';
import { markdownLines } from './markdown-lines.ts';
import type { PublishedVersions, UserLookup } from './ports.ts';
import type { NotificationFormat } from './schemas.ts';
import {
  chartRows,
  columnFormatsOf,
  defaultSpec,
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

/** A dashboard drawn to SVG for one request, and its PNG once one was rasterised. */
export interface DrawnDashboard {
  svg: string;
  title: string;
  width: number;
  height: number;
  versionNumber: number;
  failedWidgets: FailedWidget[];
  png: Buffer | null;
}

/** A render that cannot produce a file at all (no published version, no owner): the run fails. */
export class RenderError extends Error {}

export const renderWidth = 1200;

/**
 * src/render with vega, vega-lite, resvg, pdfkit and the fonts, loaded by the first render rather
 * than at start: most processes never draw a dashboard, and loading it cost every start about a
 * second and 25 MiB on a busy two-core machine (issue 20, item 6).
 */
let renderModule: Promise<typeof import('../../render/index.ts')> | null = null;
const render = () => (renderModule ??= import('../../render/index.ts'));

/**
 * A published dashboard to PNG or PDF without a browser (DESIGN.md "Notifications and rendering"):
 * every widget's query through dashboard-data (the one path to the data, with its filters and
 * time grains and the subject's security context), each chart filled with its rows, laid out by
 * src/render. A widget whose query fails is drawn with its error and listed in `failedWidgets`.
 */
export class DashboardRenderer {
  constructor(
    private readonly deps: {
      dashboards: PublishedVersions;
      dashboardData: DashboardDataService;
      users: Pick<UserLookup, 'find'>;
    },
  ) {}

  async render(request: RenderRequest): Promise<RenderedDashboardFile> {
    return this.file(await this.draw(request), request.format, request.withPreview ?? false);
  }

  /**
   * The dashboard drawn (queries run, SVG laid out), before it becomes a file: what a PNG and a
   * PDF of the same dashboard, filters and viewer share, so that a caller making both (the
   * scheduler, when notifications differ only by format) runs the queries and vega once.
   */
  async draw(request: Omit<RenderRequest, 'format' | 'withPreview'>): Promise<DrawnDashboard> {
    const found = await this.deps.dashboards.version(request.deploymentId, request.dashboardPublicId, null);
    if (!found) throw new RenderError(`Dashboard ${request.dashboardPublicId} has no published version`);
    const viewer = await this.viewer(request, found.dashboard.public_id);
    const config = readDashboardConfig(found.version.config);
    // A tabbed dashboard prints every tab, one under the other, each under its title (settings.ts).
    const widgets = stackTabs(config);
    const opened = await this.open(request, viewer, found);
    const contents = await Promise.all(
      widgets.map(async (w) => [w.id, await this.widget(request, opened, w)] as const),
    );
    const title = config.title ?? found.version.title ?? 'Dashboard';
    const { renderDashboard } = await render();
    const rendered = await renderDashboard({
      width: renderWidth,
      config: {
        title,
        description: config.description ?? found.version.description ?? null,
        layout: config.layout ?? null,
        theme: config.theme ?? null,
        widgets,
      },
      content: Object.fromEntries(contents),
    });
    return { ...rendered, title, versionNumber: found.version.version_number, png: null };
  }

  /** A drawn dashboard as a PNG or PDF file; its PNG is rasterised once, however often asked. */
  async file(
    drawn: DrawnDashboard,
    format: NotificationFormat,
    withPreview: boolean,
  ): Promise<RenderedDashboardFile> {
    const { toPdf, toPng } = await render();
    if (format === 'png' || withPreview) drawn.png ??= toPng(drawn.svg);
    const png = format === 'png' || withPreview ? drawn.png : null;
    const bytes = format === 'png' ? (png as Buffer) : await toPdf(drawn.svg, { title: drawn.title });
    return {
      format,
      contentType: format === 'png' ? 'image/png' : 'application/pdf',
      bytes,
      png,
      svg: drawn.svg,
      title: drawn.title,
      width: drawn.width,
      height: drawn.height,
      versionNumber: drawn.versionNumber,
      failedWidgets: drawn.failedWidgets,
    };
  }

  /** The viewer dashboard-data reads as: the subject, with no more than it could see itself. */
  private async viewer(
    request: Pick<RenderRequest, 'tenantId' | 'deploymentId' | 'subject'>,
    publicId: string,
  ): Promise<Viewer> {
    const s = request.subject;
    if (s.kind === 'user') {
      const user = await this.deps.users.find(request.tenantId, s.userId);
      if (!user || user.is_deactivated)
        throw new RenderError(
          `User ${s.userId}, whose security context renders the dashboard, is not active`,
        );
      return this.deps.dashboardData.viewers.user(request.tenantId, user.id, user.role);
    }
    return embedViewer(request.tenantId, {
      deploymentId: request.deploymentId,
      embedUserId: s.embedUserId,
      externalId: s.externalId,
      embedTenantId: s.embedTenantId,
      embedTenantName: s.embedTenantName,
      // Shares with the embed tenant count, as for the reference's on-behalf-of export.
      creatorMode: true,
      publicDashboardId: publicId,
      securityContext: s.securityContext,
    });
  }

  /**
   * The version opened once for the whole render (one access check, one security context, one
   * read of the snapshots), not once per widget. When it cannot be opened for the subject (no
   * access any more, say), the file is still drawn, each report widget showing why, as before.
   */
  private async open(
    request: Omit<RenderRequest, 'format' | 'withPreview'>,
    viewer: Viewer,
    found: DashboardVersion,
  ): Promise<Opened> {
    try {
      const opened = await this.deps.dashboardData.openDashboard(
        viewer,
        request.deploymentId,
        request.dashboardPublicId,
        found.version.version_number,
      );
      return { opened, snapshot: (id) => opened.snapshot(id), error: null };
    } catch (error) {
      const snapshots = await this.deps.dashboards.snapshots(found.version.id);
      return { opened: null, snapshot: (id) => snapshots.get(id), error };
    }
  }

  private async widget(
    request: Omit<RenderRequest, 'format' | 'withPreview'>,
    opened: Opened,
    w: Widget,
  ): Promise<WidgetContent> {
    const reportId = widgetReportId(w);
    const configTitle = widgetTitle(w);
    if (reportId === null) {
      const text = widgetText(w);
      if (text !== null) {
        const rows = markdownLines(text, w.config?.variant === 'heading');
        return {
          title: configTitle ?? '',
          vegaSpec: textSpec(),
          rows: rows as unknown as Record<string, unknown>[],
        };
      }
      return { title: configTitle ?? w.id, error: 'This widget shows no report' };
    }
    const snapshot = opened.snapshot(reportId);
    const published = configTitle ?? snapshot?.title ?? snapshot?.name ?? w.id;
    let title = published;
    try {
      if (!opened.opened) throw opened.error;
      const answer = await opened.opened.widget(w.id, {
        filters: request.filters ?? [],
        timeGrains: request.timeGrains ?? [],
        versionNumber: opened.opened.found.version.version_number,
        // A rendered tile shows its rows, never their count: no counting statement on the warehouse.
        total: false,
      });
      const meta: RowsMeta = {
        annotation: (answer.annotation as RowsMeta['annotation']) ?? null,
        columns: answer.columns ?? null,
      };
      const { rows, columns } = chartRows(answer.data, meta);
      // The report's chart made ready for these rows as the web viewer makes it (packages/dashboard
      // chart-spec.ts): fields at the row keys, a time-grain override followed, axes and the
      // title at the grain drawn.
      const grains = shownGrains(answer, request.timeGrains ?? []);
      title = widgetTitleAtGrains(published, snapshot?.semantic_query, grains);
      const stored = storedSpec(snapshot?.spec);
      const spec = stored ? preparedSpec(stored, columns, grains) : defaultSpec(rows, meta);
      if (spec) return { title, vegaSpec: spec, rows };
      return { title, table: tableOf(rows, meta, columnFormatsOf(snapshot?.preferences)) };
    } catch (error) {
      // A domain error's message is written for the caller (a bad filter, no access, a query
      // error); anything else may carry internals, which an image sent by email must not show.
      const message = error instanceof DomainError ? error.message : "The widget's query could not be run";
      return { title, error: message };
    }
  }
}

/** The render's opened dashboard, or why it could not be opened for the subject. */
interface Opened {
  opened: OpenedDashboard | null;
  snapshot: (reportId: number) => ReportSnapshotRow | undefined;
  error: unknown;
}
