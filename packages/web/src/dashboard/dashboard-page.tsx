import { useClient, useGetEmbedDashboard } from '@tessera/client/react';
import { Link, useParams } from 'react-router';
import { DashboardActions } from '../schedule/dashboard-actions.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { DashboardView } from './dashboard-view.tsx';
import { EmbedPreviewButton } from './embed-preview-button.tsx';
import { exploreSearch } from './explore-link.ts';
import { errorText } from './widget-tile.tsx';

/**
 * `/dashboards/:deploymentId/:publicId` in the signed-in app: the published dashboard read with
 * the session's client. `GET /api/v1/embed/dashboard/{publicId}` is the read by public id that
 * answers an account user with view access to the dashboard's workbook (as well as an embed token).
 */
export function DashboardPage({ print = false }: { print?: boolean }) {
  const params = useParams<{ deploymentId: string; publicId: string }>();
  const client = useClient();
  const user = useSignedInUser();
  const deploymentId = Number(params.deploymentId);
  const publicId = params.publicId ?? '';
  const validId = Number.isInteger(deploymentId) && deploymentId > 0;
  const read = useGetEmbedDashboard(
    { params: { path: { publicId } } },
    { enabled: validId && publicId !== '', retry: false, refetchOnWindowFocus: false },
  );

  if (!validId || publicId === '' || (read.data && read.data.deploymentId !== deploymentId)) {
    return (
      <PageMessage title="Dashboard not found" detail="There is no such dashboard in this deployment." />
    );
  }
  if (read.isError) {
    const status = (read.error as { status?: number }).status;
    const title =
      status === 404
        ? 'Dashboard not found'
        : status === 403
          ? 'No access to this dashboard'
          : 'Could not load the dashboard';
    return <PageMessage title={title} detail={errorText(read.error)} />;
  }
  if (!read.data) {
    return (
      <div className="tsr-page" aria-busy="true">
        <p className="tsr-page-loading">Loading dashboard…</p>
      </div>
    );
  }
  const dashboard = read.data;
  const title = dashboard.title || (dashboard.config.title as string | undefined) || 'Untitled dashboard';
  const description = dashboard.description || (dashboard.config.description as string | undefined);
  if (print)
    return (
      <DashboardView
        className="tsr-page"
        dashboard={dashboard}
        client={client}
        deploymentId={deploymentId}
        print
        header={
          <PrintHeader
            title={title}
            description={description}
            home={`/dashboards/${deploymentId}/${publicId}`}
          />
        }
      />
    );
  return (
    <DashboardView
      className="tsr-page"
      dashboard={dashboard}
      client={client}
      deploymentId={deploymentId}
      exploreHref={(query, filters) => `/explore/${deploymentId}${exploreSearch(query, filters)}`}
      // Alerts are admin-only on the server, as scheduled notifications are.
      createAlert={user.role === 'admin' ? { defaultEmail: user.email } : undefined}
      header={
        <header className="tsr-page-head">
          {user.role !== 'viewer' ? (
            <Link
              className="button tsr-page-edit"
              to={`/workspace/${deploymentId}/workbooks/${dashboard.workbookId}/edit`}
            >
              Edit
            </Link>
          ) : null}
          <h1 className="tsr-page-title">{title}</h1>
          {description ? <p className="tsr-page-description">{description}</p> : null}
          <DashboardActions deploymentId={deploymentId} publicId={publicId} title={title}>
            <Link
              className="button button-secondary"
              to={`/dashboards/${deploymentId}/${publicId}/print${window.location.search}`}
            >
              Print view
            </Link>
            {user.role === 'admin' ? (
              <EmbedPreviewButton
                deploymentId={deploymentId}
                publicId={publicId}
                title={title}
                allowEmbed={dashboard.allowEmbed}
                adminEmail={user.email}
              />
            ) : null}
          </DashboardActions>
        </header>
      }
    />
  );
}

/**
 * The print view's heading: the dashboard's title and description, when it was printed, and (on
 * screen only) Print and the way back to the dashboard with the same filters.
 */
function PrintHeader(props: { title: string; description?: string; home: string }) {
  const printedAt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(),
  );
  return (
    <header className="tsr-page-head">
      <div className="tsr-print-toolbar">
        <Link className="button button-secondary" to={`${props.home}${window.location.search}`}>
          Back to the dashboard
        </Link>
        <button type="button" className="button button-primary" onClick={() => window.print()}>
          Print…
        </button>
      </div>
      <h1 className="tsr-page-title">{props.title}</h1>
      {props.description ? <p className="tsr-page-description">{props.description}</p> : null}
      <p className="tsr-print-date">Printed {printedAt}</p>
    </header>
  );
}

function PageMessage({ title, detail }: { title: string; detail: string }) {
  return (
    <div className="tsr-page">
      <div className="tsr-page-message" role="alert">
        <h1 className="tsr-page-title">{title}</h1>
        <p className="tsr-page-description">{detail}</p>
      </div>
    </div>
  );
}
