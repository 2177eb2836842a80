import type { CubeQuery } from '@tessera/semantic';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { ReportSnapshotRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { DataCaller } from '../data/caller.ts';
import { settled } from '../data/outcome.ts';
import type { DataService } from '../data/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import type { WorkbooksRepository } from '../workbooks/repository.ts';
import type { DashboardDataRepository } from './repository.ts';
import type { WidgetData, WidgetDataBody } from './schemas.ts';
import type { ViewerResolver } from './security-context.ts';
import { applyDashboardState, memberNames } from './semantic-query.ts';
import { wrapSql } from './sql-widget.ts';

export interface DashboardDataDeps {
  deployments: DeploymentsService;
  access: AccessResolver;
  workbooks: WorkbooksRepository;
  dashboards: DashboardDataRepository;
  viewers: ViewerResolver;
  data: DataService;
}

type Body = Static<typeof WidgetDataBody>;
type Answer = Static<typeof WidgetData>;
interface Widget {
  id?: string;
  config?: { reportId?: unknown } | null;
}

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
    principal: Principal,
    deploymentId: number,
    publicId: string,
    widgetId: string,
    body: Body,
  ): Promise<Answer> {
    // 404 for a deployment that is not the tenant's (spec 7), before anything else is read.
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const found = await this.deps.dashboards.version(deploymentId, publicId, body.versionNumber ?? null);
    if (!found) {
      const what = body.versionNumber == null ? '' : ` version ${body.versionNumber}`;
      throw new NotFoundError(`Dashboard ${publicId}${what}`, 'dashboard_not_found');
    }
    const workbook = await this.deps.workbooks.find(deploymentId, found.dashboard.workbook_id);
    if (!workbook) throw new NotFoundError(`Dashboard ${publicId}`, 'dashboard_not_found');
    // Viewing a dashboard is viewing its workbook (DESIGN.md "Identity and access"); an embed
    // token is admitted by the embed module instead, under its session's security context.
    const securityContext = await this.deps.viewers.forDashboard(principal, found.dashboard, () =>
      ctx.require(ctx.item('WORKBOOK', workbook), 'view', `Workbook ${workbook.id}`),
    );

    const widgets = (found.version.config.widgets as Widget[] | null | undefined) ?? [];
    const widget = widgets.find((w) => w.id === widgetId);
    if (!widget) throw new NotFoundError(`Widget ${widgetId}`, 'widget_not_found');
    const reportId = widget.config?.reportId;
    const snapshot =
      typeof reportId === 'number'
        ? await this.deps.dashboards.snapshot(found.version.id, reportId)
        : undefined;
    if (!snapshot) throw new NotFoundError(`Data of widget ${widgetId}`, 'widget_without_report');

    const caller: DataCaller = {
      deployment: await this.deps.deployments.require(principal.tenantId, deploymentId),
      securityContext,
      branch: 'main',
    };
    const head = { widgetId, reportId: snapshot.report_id, versionNumber: found.version.version_number };
    // A data-API error (a bad query, a timeout) is a domain error: it answers as problem+json as is.
    const semantic = semanticQuery(snapshot);
    if (semantic) return { ...head, ...(await this.semantic(caller, semantic, body)) };
    if (snapshot.sql_query) return { ...head, ...(await this.sql(caller, snapshot.sql_query, body)) };
    throw new ValidationError(
      `Report ${snapshot.report_id} of widget ${widgetId} has no query`,
      [],
      'report_without_query',
    );
  }

  private async semantic(caller: DataCaller, widgetQuery: CubeQuery, body: Body) {
    const members = memberNames(await this.deps.data.meta(caller, false));
    const query = applyDashboardState(
      { ...widgetQuery, responseFormat: 'default' },
      {
        filters: body.filters ?? [],
        timeGrains: body.timeGrains ?? [],
        limit: body.limit ?? null,
        offset: body.offset ?? null,
      },
      members,
    );
    // A compare-date-range widget answers its first range. A query that outlives the data API's
    // continue-wait window is simply awaited: the outcome says "running", not a wire message.
    const result = await settled(
      await this.deps.data.run(caller, await this.deps.data.compile(caller, query)),
    );
    const first = result.parts[0];
    return {
      kind: 'semantic' as const,
      query: { ...first.compiled.normalizedQuery, queryType: result.queryType },
      annotation: first.compiled.annotation,
      data: first.rows,
      lastRefreshTime: first.refreshedAt.toISOString(),
      totalRows: first.compiled.normalizedQuery.total ? first.total : null,
    };
  }

  private async sql(caller: DataCaller, text: string, body: Body) {
    const cubesql = async (sql: string) =>
      settled(await this.deps.data.run(caller, await this.deps.data.compileSql(caller, sql)));
    const filters = body.filters ?? [];
    const grains = body.timeGrains ?? [];
    let sql = wrapSql(text, [], grains, []);
    if (filters.length > 0) {
      // The output columns are known once the report's SQL is planned and run (cached by the executor).
      const plain = await cubesql(text);
      sql = wrapSql(
        text,
        filters,
        grains,
        plain.columns.map((c) => c.name),
      );
    }
    const answer = await cubesql(sql);
    const rows = answer.rows.map((r) => Object.fromEntries(answer.columns.map((c, i) => [c.name, r[i]])));
    const offset = body.offset ?? 0;
    return {
      kind: 'sql' as const,
      query: sql,
      columns: answer.columns,
      data: rows.slice(offset, body.limit == null ? undefined : offset + body.limit),
      lastRefreshTime: answer.refreshedAt.toISOString(),
      totalRows: rows.length,
    };
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
