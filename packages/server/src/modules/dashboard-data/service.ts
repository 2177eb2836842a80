import { type DashboardConfig, dashboardWidgets, widgetReportId, widgetTitle } from '@tessera/dashboard';
import { type CubeQuery, JoinPathError } from '@tessera/semantic';
import type { Static } from 'typebox';
import { columnFormatsOf, type RowsMeta } from '../../../../client/src/format/table.ts';
import type { ReportSnapshotRow } from '../../db/schema.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { DataCaller } from '../data/caller.ts';
import type { CompiledLoad } from '../data/compile.ts';
import { settled } from '../data/outcome.ts';
import type { DataService } from '../data/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { contentSubject, dashboardSubject } from '../permissions/access.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { type FillSpec, fillMissingRows } from './fill-missing-rows.ts';
import type { DownloadPolicy, ReportLookup, WorkbookLookup } from './ports.ts';
import type { DashboardDataRepository, DashboardVersion } from './repository.ts';
import type {
  DimensionValues,
  DimensionValuesBody,
  ReportData,
  ReportDataBody,
  WidgetData,
  WidgetDataBody,
} from './schemas.ts';
import type { ViewerResolver } from './security-context.ts';
import { applyDashboardState, dimensionTypes, type Filter, memberNames } from './semantic-query.ts';
import { groupedGrain, type NotApplied, type Projection, regrain, wrapSql } from './sql-widget.ts';
import type { Viewer } from './viewer.ts';
import { widgetWorkbook } from './xlsx.ts';

export interface DashboardDataDeps {
  deployments: DeploymentsService;
  access: AccessResolver;
  workbooks: WorkbookLookup;
  dashboards: DashboardDataRepository;
  viewers: ViewerResolver;
  data: DataService;
  reports: ReportLookup;
  downloads: DownloadPolicy;
}

type Body = Static<typeof WidgetDataBody>;
type Answer = Static<typeof WidgetData>;

/** The most rows a spreadsheet download holds (the widget-data endpoint's own ceiling). */
const xlsxMaxRows = 50_000;

/**
 * Rows of one widget of a published dashboard, as the VIEWER may see them.
 * Nothing here talks to a driver: the widget's query goes through DataService (`compile` for Cube
 * queries, `compileSql` for SQL-API text, then `run`) under the viewer's security context, i.e. the
 * same compile path, policies and executor as `/v1/load` (DESIGN.md "Semantic layer and data
 * API": one path).
 */
export class DashboardDataService {
  constructor(private readonly deps: DashboardDataDeps) {}

  /** Builds viewers' security contexts; its user-attribute source is where an attribute store plugs in. */
  get viewers(): ViewerResolver {
    return this.deps.viewers;
  }

  async widgetData(
    viewer: Viewer,
    deploymentId: number,
    publicId: string,
    widgetId: string,
    body: Body,
    signal?: AbortSignal,
  ): Promise<Answer> {
    const opened = await this.openDashboard(
      viewer,
      deploymentId,
      publicId,
      body.versionNumber ?? null,
      signal,
    );
    return opened.widget(widgetId, body);
  }

  /**
   * A widget's rows as an Excel workbook (the tile menu's "Download XLSX"), with the dashboard's
   * state applied as for `widgetData`, up to `xlsxMaxRows` rows. Refused with 403
   * `data_download_restricted` when the tenant restricts data downloads (spec 2.3
   * `restrictDataDownload`): the page hides the item, and the server is what enforces it.
   */
  async widgetXlsx(
    viewer: Viewer,
    deploymentId: number,
    publicId: string,
    widgetId: string,
    body: Body,
  ): Promise<{ file: Buffer; title: string }> {
    const opened = await this.openDashboard(viewer, deploymentId, publicId, body.versionNumber ?? null);
    if (await this.deps.downloads.restricted(viewer.tenantId))
      throw new ForbiddenError('Downloading data is turned off for this account', 'data_download_restricted');
    const answer = await opened.widget(widgetId, { ...body, limit: body.limit ?? xlsxMaxRows });
    const widget = dashboardWidgets(opened.found.version.config).find((w) => w.id === widgetId);
    const snapshot = opened.snapshot(answer.reportId);
    const title = (widget && widgetTitle(widget)) || snapshot?.title || snapshot?.name || 'Data';
    const meta = { annotation: answer.annotation as RowsMeta['annotation'], columns: answer.columns };
    const file = await widgetWorkbook(title, answer.data, meta, columnFormatsOf(snapshot?.preferences));
    return { file, title };
  }

  /**
   * A report's rows as its page shows them, for anyone with view access to the report (viewers
   * included: they cannot get a data-API token). The report's saved query (its current version,
   * not a published snapshot) runs through the same compile path and executor as `/v1/load`
   * under the CALLER's security context, so row- and member-level policies apply as for them.
   * 404 for an unknown report or one of another deployment, 403 without view access, 400
   * `report_without_query` for a report with no query yet.
   */
  async reportData(
    viewer: Viewer,
    deploymentId: number,
    reportId: number,
    body: Static<typeof ReportDataBody>,
    signal?: AbortSignal,
  ): Promise<Static<typeof ReportData>> {
    // An embed token reads the dashboards its session was given, never a workspace's reports.
    if (viewer.embed) throw new NotFoundError(`Report ${reportId}`, 'report_not_found');
    const ctx = await this.deps.access.resolve(viewer, deploymentId);
    const row = await this.deps.reports.find(deploymentId, reportId, viewer.userId);
    if (!row) throw new NotFoundError(`Report ${reportId}`, 'report_not_found');
    ctx.require(ctx.item('REPORT', row), 'view', contentSubject('REPORT', reportId));
    const caller: DataCaller = {
      deployment: await this.deps.deployments.require(viewer.tenantId, deploymentId),
      securityContext: viewer.securityContext,
      branch: 'main',
      accountUserId: viewer.userId,
      signal,
    };
    const paging = { limit: body.limit ?? null, offset: body.offset ?? null };
    if (row.json_query) {
      let query: unknown;
      try {
        query = JSON.parse(row.json_query);
      } catch {
        query = null;
      }
      if (!query || typeof query !== 'object' || Array.isArray(query))
        throw new ValidationError(
          `Report ${reportId} has a query that is not a JSON object`,
          [],
          'invalid_widget_query',
        );
      const answer = await this.semantic(caller, query as CubeQuery, paging, row.fill_missing_rows);
      return { reportId, ...answer };
    }
    if (row.sql_query) {
      const { notApplied: _none, ...answer } = await this.sql(caller, row.sql_query, paging);
      return { reportId, ...answer };
    }
    throw new ValidationError(`Report ${reportId} has no query`, [], 'report_without_query');
  }

  /**
   * A published dashboard opened once for one caller, to read several of its widgets: the access
   * check, the security context and the version's snapshots are those of this one call, shared by
   * every `widget()` of it (a render reads all its widgets this way instead of re-checking and
   * re-reading per widget). Nothing is kept beyond the returned object: the next call checks again,
   * so an unpublished dashboard or a revoked grant is seen on the next render.
   */
  async openDashboard(
    viewer: Viewer,
    deploymentId: number,
    publicId: string,
    versionNumber: number | null,
    signal?: AbortSignal,
  ): Promise<OpenedDashboard> {
    const { found, caller } = await this.open(viewer, deploymentId, publicId, versionNumber, signal);
    const snapshots = await this.deps.dashboards.snapshots(found.version.id);
    return new OpenedDashboard(found, snapshots, (snapshot, widgetId, body) =>
      this.answer(caller, found.version.version_number, snapshot, widgetId, body),
    );
  }

  private async answer(
    caller: DataCaller,
    versionNumber: number,
    snapshot: ReportSnapshotRow,
    widgetId: string,
    body: Body,
  ): Promise<Answer> {
    const head = { widgetId, reportId: snapshot.report_id, versionNumber };
    // A data-API error (a bad query, a timeout) is a domain error: it answers as problem+json as is.
    const semantic = semanticQuery(snapshot);
    if (semantic)
      return { ...head, ...(await this.semantic(caller, semantic, body, snapshot.fill_missing_rows)) };
    if (snapshot.sql_query) return { ...head, ...(await this.sql(caller, snapshot.sql_query, body)) };
    throw new ValidationError(
      `Report ${snapshot.report_id} of widget ${widgetId} has no query`,
      [],
      'report_without_query',
    );
  }

  /**
   * The values of the dashboard's dimensions for its filter controls, read once per dashboard
   * instead of once per control through a widget's rows. Each member is asked as its own Cube query
   * (`dimensions: [member]`, ordered, `limit + 1` to know whether the list is complete) through the
   * same compile path and security context as the widgets, so row-level policies apply alike. The
   * dashboard's filters apply, except those on the member itself, so that picking one value does
   * not hide the others. Only dimensions the published widgets group by may be asked (400
   * `unknown_member`): a viewer reads no more of the model than the dashboard shows.
   */
  async dimensionValues(
    viewer: Viewer,
    deploymentId: number,
    publicId: string,
    body: Static<typeof DimensionValuesBody>,
    signal?: AbortSignal,
  ): Promise<Static<typeof DimensionValues>> {
    const { found, caller } = await this.open(
      viewer,
      deploymentId,
      publicId,
      body.versionNumber ?? null,
      signal,
    );
    const shown = dashboardDimensions(
      await this.deps.dashboards.snapshots(found.version.id),
      found.version.config,
    );
    const asked = body.members ?? [...shown];
    asked.forEach((m, i) => {
      if (!shown.has(m))
        throw new ValidationError(
          `${m} is not a dimension of this dashboard's widgets`,
          [{ field: `body/members/${i}`, message: `${m} is not a dimension of this dashboard's widgets` }],
          'unknown_member',
        );
    });
    const meta = await this.deps.data.meta(caller, false);
    const types = dimensionTypes(meta);
    const members = memberNames(meta);
    const filters = body.filters ?? [];
    const limit = body.limit ?? 500;
    const search = body.search?.trim() || null;
    const lists = await Promise.all(
      [...new Set(asked)].map(async (member) => {
        const type = types.get(member);
        // A member /v1/meta does not list for this viewer (a primary key, a member its policies
        // hide) has no values to offer: an empty list of type `unknown`, not an error.
        if (type === undefined)
          return { member, type: 'unknown', values: [], complete: true, notApplied: [] };
        const query = (applied: typeof filters) =>
          applyDashboardState(
            {
              dimensions: [member],
              order: { [member]: 'asc' },
              filters:
                search && type === 'string' ? [{ member, operator: 'contains', values: [search] }] : [],
            },
            { filters: applied, timeGrains: [], limit: limit + 1, offset: null },
            members,
          );
        const { compiled, notApplied } = await this.listing(
          caller,
          filters.filter((f) => f.member !== member),
          query,
        );
        const result = await settled(await this.deps.data.run(caller, compiled));
        const values = result.parts[0].rows
          .map((r) => r[member])
          .filter((v) => v !== null && v !== undefined)
          .map(String);
        return { member, type, values: values.slice(0, limit), complete: values.length <= limit, notApplied };
      }),
    );
    return { versionNumber: found.version.version_number, members: lists };
  }

  /**
   * One member's listing compiled under the dashboard's other filters. A filter on a cube the
   * member's cannot be joined to (the demo's products and customers meet only through orders and
   * line items) would make the whole listing fail with a join-path error; it is left out instead,
   * one filter at a time in the order given, and named in `notApplied` so that the viewer can say
   * the list is not narrowed by it. Any other compile error is the caller's, as before.
   */
  private async listing(
    caller: DataCaller,
    filters: Filter[],
    query: (applied: Filter[]) => CubeQuery,
  ): Promise<{ compiled: CompiledLoad; notApplied: string[] }> {
    const compile = (applied: Filter[]) =>
      this.deps.data.compile(caller, { ...query(applied), total: false });
    try {
      return { compiled: await compile(filters), notApplied: [] };
    } catch (error) {
      if (!isJoinPathError(error) || filters.length === 0) throw error;
    }
    const applied: Filter[] = [];
    const notApplied: string[] = [];
    for (const filter of filters) {
      try {
        await compile([...applied, filter]);
        applied.push(filter);
      } catch (error) {
        if (!isJoinPathError(error)) throw error;
        if (!notApplied.includes(filter.member)) notApplied.push(filter.member);
      }
    }
    return { compiled: await compile(applied), notApplied };
  }

  /**
   * The published version a caller reads and the data caller it reads it as: 404 for a deployment
   * that is not the tenant's (spec 7) or an unknown dashboard or version; 403 without view access.
   * `signal`: the request went away, and with it the reason to run its queries (data/executor.ts).
   */
  private async open(
    viewer: Viewer,
    deploymentId: number,
    publicId: string,
    versionNumber: number | null,
    signal?: AbortSignal,
  ) {
    const ctx = await this.deps.access.resolve(viewer, deploymentId);
    const found = await this.deps.dashboards.version(deploymentId, publicId, versionNumber);
    if (!found) {
      const what = versionNumber == null ? '' : ` version ${versionNumber}`;
      throw new NotFoundError(`Dashboard ${publicId}${what}`, 'dashboard_not_found');
    }
    const workbook = await this.deps.workbooks.find(deploymentId, found.dashboard.workbook_id);
    if (!workbook) throw new NotFoundError(`Dashboard ${publicId}`, 'dashboard_not_found');
    // Viewing a dashboard is viewing its workbook (DESIGN.md "Identity and access"); an embed
    // token is admitted by the embed module instead, under its session's security context.
    const securityContext = await this.deps.viewers.forDashboard(viewer, found.dashboard, () =>
      ctx.require(ctx.item('WORKBOOK', workbook), 'view', dashboardSubject(publicId, workbook.id)),
    );
    const caller: DataCaller = {
      deployment: await this.deps.deployments.require(viewer.tenantId, deploymentId),
      securityContext,
      branch: 'main',
      // An embed token's end user is no account user: a data source of viewers' tokens refuses them.
      ...(viewer.kind === 'embed' ? {} : { accountUserId: viewer.userId }),
      signal,
    };
    return { found, caller };
  }

  private async semantic(caller: DataCaller, widgetQuery: CubeQuery, body: Body, fill: FillSpec | null) {
    const members = memberNames(await this.deps.data.meta(caller, false));
    const query = applyDashboardState(
      { ...widgetQuery, responseFormat: 'default', ...(body.renewQuery ? { renewQuery: true } : {}) },
      {
        filters: body.filters ?? [],
        timeGrains: body.timeGrains ?? [],
        limit: body.limit ?? null,
        offset: body.offset ?? null,
        total: body.total ?? true,
      },
      members,
    );
    // A compare-date-range widget answers its first range. A query that outlives the data API's
    // continue-wait window is simply awaited: the outcome says "running", not a wire message.
    const result = await settled(
      await this.deps.data.run(caller, await this.deps.data.compile(caller, query)),
    );
    const first = result.parts[0];
    // The report's fillMissingRows (spec 2.3): every period of its time series, on the query as
    // run (after the dashboard's grain and date range), fill-missing-rows.ts.
    const data = fill ? fillMissingRows(first.rows, query, fill) : first.rows;
    const total = first.compiled.normalizedQuery.total ? first.total : null;
    return {
      kind: 'semantic' as const,
      query: { ...first.compiled.normalizedQuery, queryType: result.queryType },
      annotation: first.compiled.annotation,
      data,
      lastRefreshTime: first.refreshedAt.toISOString(),
      totalRows: total === null || total === undefined ? null : total + data.length - first.rows.length,
    };
  }

  /** A SQL-API widget with the dashboard state applied where its projection allows (sql-widget.ts). */
  private async sql(caller: DataCaller, text: string, body: Body) {
    const filters = body.filters ?? [];
    const grains = body.timeGrains ?? [];
    const plan = async (sql: string): Promise<Projection> =>
      (await this.deps.data.compileSql(caller, sql)).plan;
    const notApplied: NotApplied[] = [];
    let sql = text;
    if (grains.length > 0 || filters.length > 0) {
      // Planning (no run) tells the projection: which members the SQL groups by, and at which grain.
      let projection = await plan(text);
      const members = memberNames(await this.deps.data.meta(caller, false));
      grains.forEach((g, i) => {
        if (!members.has(g.member))
          throw new ValidationError(
            `Unknown member in time grain: ${g.member}`,
            [{ field: `body/timeGrains/${i}/member`, message: `Unknown member in time grain: ${g.member}` }],
            'unknown_member',
          );
      });
      const regrained = regrain(text, grains, projection);
      if (regrained !== text) {
        projection = await plan(regrained);
        sql = regrained;
      }
      for (const g of grains) {
        const grain = groupedGrain(g.member, projection);
        if (grain !== null && grain !== g.grain)
          notApplied.push({
            kind: 'timeGrain',
            member: g.member,
            reason: `the widget's SQL truncates ${g.member} in a way that cannot be re-grained`,
          });
      }
      const wrapped = wrapSql(sql, filters, projection, members);
      sql = wrapped.sql;
      notApplied.push(...wrapped.notApplied);
    }
    const answer = await settled(
      await this.deps.data.run(caller, await this.deps.data.compileSql(caller, sql), {
        renew: body.renewQuery === true,
      }),
    );
    const rows = answer.rows.map((r) => Object.fromEntries(answer.columns.map((c, i) => [c.name, r[i]])));
    const offset = body.offset ?? 0;
    return {
      kind: 'sql' as const,
      query: sql,
      columns: answer.columns,
      data: rows.slice(offset, body.limit == null ? undefined : offset + body.limit),
      lastRefreshTime: answer.refreshedAt.toISOString(),
      totalRows: rows.length,
      notApplied,
    };
  }
}

/** A compile error whose cause is the semantic layer's "Can't find join path" (data/compile.ts). */
function isJoinPathError(error: unknown): boolean {
  return error instanceof Error && error.cause instanceof JoinPathError;
}

/** The dimensions (and time dimensions) the semantic queries of a version's widgets group by. */
function dashboardDimensions(
  snapshots: Map<number, ReportSnapshotRow>,
  config: DashboardConfig,
): Set<string> {
  const names = new Set<string>();
  for (const w of dashboardWidgets(config)) {
    const reportId = widgetReportId(w);
    if (reportId === null) continue;
    const query = snapshots.get(reportId)?.semantic_query;
    if (!query) continue;
    for (const d of query.dimensions ?? []) names.add(d);
    for (const t of query.timeDimensions ?? []) names.add(t.dimension);
  }
  return names;
}

/**
 * One published version as `openDashboard` opened it for one caller: its rows, its snapshots, and
 * its widgets' data under that caller's security context (the checks were made when it was opened).
 */
export class OpenedDashboard {
  constructor(
    readonly found: DashboardVersion,
    private readonly snapshots: Map<number, ReportSnapshotRow>,
    private readonly answer: (snapshot: ReportSnapshotRow, widgetId: string, body: Body) => Promise<Answer>,
  ) {}

  /** The snapshot of a report this version shows, if the version has one. */
  snapshot(reportId: number): ReportSnapshotRow | undefined {
    return this.snapshots.get(reportId);
  }

  /** One widget's rows: 404 for a widget the version does not have or one without a report. */
  async widget(widgetId: string, body: Body): Promise<Answer> {
    const widget = dashboardWidgets(this.found.version.config).find((w) => w.id === widgetId);
    if (!widget) throw new NotFoundError(`Widget ${widgetId}`, 'widget_not_found');
    const reportId = widgetReportId(widget);
    const snapshot = reportId === null ? undefined : this.snapshots.get(reportId);
    if (!snapshot) throw new NotFoundError(`Data of widget ${widgetId}`, 'widget_without_report');
    return this.answer(snapshot, widgetId, body);
  }
}

/** The snapshot's Cube query (`report_snapshots.semantic_query`), when the report has one. */
function semanticQuery(s: ReportSnapshotRow): CubeQuery | null {
  if (s.semantic_query) return s.semantic_query;
  // Migration 0007 moved every `meta.jsonQuery` that parsed into the column; one left there did not.
  const legacy = (s.meta as { jsonQuery?: unknown } | null)?.jsonQuery;
  if (typeof legacy === 'string' && legacy.trim() !== '') {
    throw new ValidationError(
      `Report ${s.report_id} has a query that is not JSON`,
      [],
      'invalid_widget_query',
    );
  }
  return null;
}
