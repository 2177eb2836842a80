import type { SuccessBody } from '@tessera/client';
import { useGetReports, useGetWorkbook } from '@tessera/client/react';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { DashboardIcon, ReportIcon } from '../layout/icons.tsx';
import { Card, type Crumb, DateText, PageHeader } from '../layout/page.tsx';
import { ShowMoreItem } from '../layout/show-more-item.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { ShareButton } from '../sharing/share-button.tsx';
import { pageSize } from './workspace-items.tsx';

type Workbook = SuccessBody<'/api/v1/deployments/{deploymentId}/workbooks/{workbookId}', 'get'>;

/** Breadcrumbs from the workspace root down to an item's folder. */
export function folderCrumbs(
  deploymentId: number,
  folderPath: { id: number; name: string }[],
  current: string,
): Crumb[] {
  return [
    { label: 'Workspace', to: `/workspace/${deploymentId}` },
    ...folderPath.map((f) => ({ label: f.name, to: `/workspace/${deploymentId}/folders/${f.id}` })),
    { label: current },
  ];
}

/** The widgets of a dashboard config (spec 2.2), counted without trusting its shape. */
function widgetCount(config: unknown): number {
  const widgets = (config as { widgets?: unknown } | null | undefined)?.widgets;
  return Array.isArray(widgets) ? widgets.length : 0;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `/workspace/:deploymentId/workbooks/:workbookId`: a workbook, its dashboard and its reports. */
export function WorkbookPage() {
  const params = useParams();
  const deploymentId = idParam(params.deploymentId);
  const workbookId = idParam(params.workbookId);
  if (deploymentId === null || workbookId === null) {
    return <ErrorState title="Not found" message="This address does not name a workbook." />;
  }
  return (
    <WorkbookView key={`${deploymentId}/${workbookId}`} deploymentId={deploymentId} workbookId={workbookId} />
  );
}

function WorkbookView({ deploymentId, workbookId }: { deploymentId: number; workbookId: number }) {
  // Sharing needs manage access to the workbook, which the server checks; viewers cannot grant.
  const developer = useSignedInUser().role !== 'viewer';
  const workbook = useGetWorkbook({ params: { path: { deploymentId, workbookId } } });
  const user = useSignedInUser();
  if (workbook.isPending) return <LoadingState label="Loading the workbook…" />;
  if (workbook.isError) {
    return (
      <>
        <PageHeader
          title="Workbook"
          breadcrumbs={[{ label: 'Workspace', to: `/workspace/${deploymentId}` }]}
        />
        <ErrorState
          title="This workbook could not be opened"
          error={workbook.error}
          onRetry={() => void workbook.refetch()}
        />
      </>
    );
  }
  const wb = workbook.data;
  const published = wb.publishedDashboard ?? null;
  const owner = wb.user ? wb.user.firstName || wb.user.email : null;
  return (
    <>
      <PageHeader
        title={wb.name}
        subtitle={
          <>
            Workbook{owner ? ` · owned by ${owner}` : ''} · updated <DateText value={wb.updatedAt} />
          </>
        }
        breadcrumbs={folderCrumbs(deploymentId, wb.folderPath, wb.name)}
        actions={
          <>
            {developer && (
              <ShareButton
                deploymentId={deploymentId}
                item={{ type: 'WORKBOOK', id: wb.id, name: wb.name, folderPath: wb.folderPath }}
              />
            )}
            {/* Viewers may not save a draft (the route needs the developer role); edit access is checked on save. */}
            {user.role !== 'viewer' ? (
              <Link className="button" to={`/workspace/${deploymentId}/workbooks/${workbookId}/edit`}>
                Edit dashboard
              </Link>
            ) : null}
            {published ? (
              <Link
                className="button button-primary"
                to={`/dashboards/${deploymentId}/${published.publicId}`}
              >
                <DashboardIcon /> Open dashboard
              </Link>
            ) : null}
          </>
        }
      />
      <div className="grid-2">
        <DashboardCard workbook={wb} deploymentId={deploymentId} />
        <Card title="Details">
          <dl className="details">
            <dt>Owner</dt>
            <dd>{owner ?? <span className="muted">—</span>}</dd>
            <dt>Created</dt>
            <dd>
              <DateText value={wb.createdAt} />
            </dd>
            <dt>Updated</dt>
            <dd>
              <DateText value={wb.updatedAt} />
            </dd>
            <dt>Folder</dt>
            <dd>{wb.folderPath.length ? wb.folderPath.map((f) => f.name).join(' / ') : 'Workspace root'}</dd>
          </dl>
        </Card>
      </div>
      <WorkbookReports deploymentId={deploymentId} workbookId={workbookId} />
    </>
  );
}

function DashboardCard({ workbook, deploymentId }: { workbook: Workbook; deploymentId: number }) {
  const published = workbook.publishedDashboard ?? null;
  const draftWidgets = widgetCount(workbook.dashboardDraft);
  return (
    <Card title="Dashboard">
      {published ? (
        <div className="dashboard-summary">
          <p className="dashboard-title">
            <Link to={`/dashboards/${deploymentId}/${published.publicId}`}>
              {published.title || workbook.name}
            </Link>
          </p>
          {published.description && <p className="muted">{published.description}</p>}
          <p className="meta-line">
            Published version {published.versionNumber} · {plural(widgetCount(published.config), 'widget')}
            {published.allowEmbed ? ' · embeddable' : ''}
          </p>
        </div>
      ) : (
        <p className="muted">
          Not published yet.
          {draftWidgets > 0 ? ` The draft has ${plural(draftWidgets, 'widget')}.` : ''}
        </p>
      )}
    </Card>
  );
}

function WorkbookReports({ deploymentId, workbookId }: { deploymentId: number; workbookId: number }) {
  const [after, setAfter] = useState<string[]>([]);
  return (
    <Card title="Reports">
      <ul className="report-list">
        {[undefined, ...after].map((cursor, index) => (
          <ReportsPage
            key={cursor ?? 'first'}
            deploymentId={deploymentId}
            workbookId={workbookId}
            after={cursor}
            isFirst={index === 0}
            isLast={index === after.length}
            onMore={(next) => setAfter((a) => [...a, next])}
          />
        ))}
      </ul>
    </Card>
  );
}

function ReportsPage(props: {
  deploymentId: number;
  workbookId: number;
  after?: string;
  isFirst: boolean;
  isLast: boolean;
  onMore: (cursor: string) => void;
}) {
  const { deploymentId, workbookId, after } = props;
  const reports = useGetReports({
    params: { path: { deploymentId }, query: { workbookId, first: pageSize, ...(after ? { after } : {}) } },
  });
  if (reports.isPending)
    return (
      <li>
        <LoadingState label="Loading reports…" />
      </li>
    );
  if (reports.isError)
    return (
      <li>
        <ErrorState
          title="The reports could not be loaded"
          error={reports.error}
          onRetry={() => void reports.refetch()}
        />
      </li>
    );
  const { items, pageInfo } = reports.data;
  return (
    <>
      {props.isFirst && items.length === 0 && (
        <li>
          <EmptyState title="No reports">This workbook has no reports you can view.</EmptyState>
        </li>
      )}
      {items.map((report) => (
        <li key={report.id}>
          <Link to={`/workspace/${deploymentId}/reports/${report.id}`} className="item-name">
            <ReportIcon className="item-icon item-icon-report" />
            <span>{report.title || report.name}</span>
          </Link>
          <span className="muted">
            <DateText value={report.updatedAt} />
          </span>
        </li>
      ))}
      {props.isLast && <ShowMoreItem pageInfo={pageInfo} onMore={props.onMore} />}
    </>
  );
}
