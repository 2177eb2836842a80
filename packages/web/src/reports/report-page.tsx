import { useCreateReport, useGetReport } from '@tessera/client/react';
import { useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { describeError } from '../api/errors.ts';
import type { ColumnFormat } from '../dashboard/types.ts';
import { idParam } from '../layout/deployment.ts';
import { DateText, PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { ShareButton } from '../sharing/share-button.tsx';
import './report.css';
import { folderCrumbs } from '../workspace/workbook-page.tsx';
import { DeleteReportDialog, EditReportDialog, MoveReportDialog } from './report-dialogs.tsx';
import { ReportResults } from './report-results.tsx';

/** `/workspace/:deploymentId/reports/:reportId`: a report's chart and rows, and what may be done with it. */
export function ReportPage() {
  const params = useParams();
  const deploymentId = idParam(params.deploymentId);
  const reportId = idParam(params.reportId);
  if (deploymentId === null || reportId === null) {
    return <ErrorState title="Not found" message="This address does not name a report." />;
  }
  return <ReportView key={`${deploymentId}/${reportId}`} deploymentId={deploymentId} reportId={reportId} />;
}

type Open = 'edit' | 'move' | 'delete' | null;

function ReportView({ deploymentId, reportId }: { deploymentId: number; reportId: number }) {
  const report = useGetReport({ params: { path: { deploymentId, reportId } } });
  // Writes to reports need the developer role as well as the report's own access (routes.ts).
  const developer = useSignedInUser().role !== 'viewer';
  const navigate = useNavigate();
  const [open, setOpen] = useState<Open>(null);
  const location = useLocation();
  // A duplicate opens on its own page, which says where it came from.
  const [notice, setNotice] = useState<{ text: string; failed?: boolean } | null>(() => {
    const text = (location.state as { notice?: unknown } | null)?.notice;
    return typeof text === 'string' ? { text } : null;
  });
  const [deleted, setDeleted] = useState<string | null>(null);
  const duplicate = useCreateReport({
    onSuccess: (copy) =>
      navigate(`/workspace/${deploymentId}/reports/${copy.id}`, {
        state: { notice: `Duplicated as “${copy.name}”.` },
      }),
    onError: (error) =>
      setNotice({ text: `It could not be duplicated: ${describeError(error)}`, failed: true }),
  });
  const r = report.data;
  const results = useMemo(
    () =>
      r
        ? {
            id: r.id,
            jsonQuery: r.jsonQuery,
            sqlQuery: r.sqlQuery,
            title: r.title || r.name,
            spec: r.spec,
            columnFormats: (r.preferences.columnFormats ?? {}) as Record<string, ColumnFormat>,
          }
        : null,
    [r],
  );

  const workspace = { label: 'Workspace', to: `/workspace/${deploymentId}` };
  if (deleted !== null) {
    return (
      <>
        <PageHeader title={deleted} breadcrumbs={[workspace, { label: deleted }]} />
        <div role="status">
          <EmptyState title={`“${deleted}” was deleted`}>
            <Link to={`/workspace/${deploymentId}`}>Back to the workspace</Link>
          </EmptyState>
        </div>
      </>
    );
  }
  if (report.isPending) return <LoadingState label="Loading the report…" />;
  if (report.isError || !r || !results) {
    return (
      <>
        <PageHeader title="Report" breadcrumbs={[workspace]} />
        <ErrorState
          title="This report could not be opened"
          error={report.error}
          onRetry={() => void report.refetch()}
        />
      </>
    );
  }
  const name = r.title || r.name;
  const owner = r.user ? r.user.firstName || r.user.email : null;
  const done = (text: string) => {
    setOpen(null);
    setNotice({ text });
  };
  const item = {
    id: r.id,
    name: r.name,
    title: r.title,
    description: r.description,
    folderId: r.folderId,
    workbookId: r.workbookId,
  };
  const copy = () => {
    setNotice(null);
    duplicate.mutate({
      params: { path: { deploymentId } },
      body: {
        name: `${r.name} (copy)`.slice(0, 255),
        title: r.title ? `${r.title} (copy)`.slice(0, 255) : null,
        description: r.description,
        jsonQuery: r.jsonQuery,
        sqlQuery: r.sqlQuery,
        spec: r.spec,
        preferences: r.preferences.columnFormats
          ? { columnFormats: r.preferences.columnFormats as Record<string, ColumnFormat> }
          : null,
        fillMissingRows: r.fillMissingRows as { member: string } | null,
        meta: r.meta,
        folderId: r.folderId,
        workbookId: r.workbookId,
      },
    });
  };
  const canEdit = developer && r.canEdit;
  const reason = !developer
    ? 'You can view this report; changing or copying reports needs the developer role.'
    : 'You can view this report; changing it needs edit access to it.';
  const actions = developer ? (
    <>
      {canEdit && (
        <button type="button" className="button button-secondary" onClick={() => setOpen('edit')}>
          Edit
        </button>
      )}
      <button type="button" className="button button-secondary" onClick={copy} disabled={duplicate.isPending}>
        {duplicate.isPending ? 'Duplicating…' : 'Duplicate'}
      </button>
      {canEdit && (
        <button type="button" className="button button-secondary" onClick={() => setOpen('move')}>
          Move
        </button>
      )}
      {r.canManage && (
        <ShareButton
          deploymentId={deploymentId}
          item={{ type: 'REPORT', id: r.id, name, folderPath: r.folderPath }}
        />
      )}
      {r.canManage && (
        <button
          type="button"
          className="button button-secondary report-delete"
          onClick={() => setOpen('delete')}
        >
          Delete
        </button>
      )}
    </>
  ) : null;
  return (
    <>
      <PageHeader
        title={name}
        subtitle={
          <>
            Report{owner ? ` · owned by ${owner}` : ''} · updated <DateText value={r.updatedAt} />
          </>
        }
        breadcrumbs={folderCrumbs(deploymentId, r.folderPath, name)}
        actions={actions}
      />
      <ReportNotice notice={notice} onDismiss={() => setNotice(null)} />
      {!canEdit && <p className="muted report-readonly">{reason}</p>}
      {r.description && <p className="report-description">{r.description}</p>}
      <ReportResults deploymentId={deploymentId} report={results} />
      <details className="card report-details">
        <summary>Query and details</summary>
        <div className="card-body">
          <dl className="details">
            <dt>Name</dt>
            <dd>{r.name}</dd>
            <dt>Kind</dt>
            <dd>{r.kind}</dd>
            <dt>Version</dt>
            <dd>{r.version}</dd>
            <dt>Access</dt>
            <dd>{r.canManage ? 'You can manage it' : r.canEdit ? 'You can edit it' : 'You can view it'}</dd>
            {r.workbookId !== null && (
              <>
                <dt>Workbook</dt>
                <dd>
                  <Link to={`/workspace/${deploymentId}/workbooks/${r.workbookId}`}>Open the workbook</Link>
                </dd>
              </>
            )}
          </dl>
          {r.jsonQuery && (
            <>
              <h3>Query</h3>
              <pre className="code">{pretty(r.jsonQuery)}</pre>
            </>
          )}
          {r.sqlQuery && (
            <>
              <h3>SQL</h3>
              <pre className="code">{r.sqlQuery}</pre>
            </>
          )}
        </div>
      </details>
      {open === 'edit' && (
        <EditReportDialog
          deploymentId={deploymentId}
          report={item}
          onDone={done}
          onClose={() => setOpen(null)}
        />
      )}
      {open === 'move' && (
        <MoveReportDialog
          deploymentId={deploymentId}
          report={item}
          onDone={done}
          onClose={() => setOpen(null)}
        />
      )}
      {open === 'delete' && (
        <DeleteReportDialog
          deploymentId={deploymentId}
          report={item}
          onDeleted={() => setDeleted(name)}
          onClose={() => setOpen(null)}
        />
      )}
    </>
  );
}

/** What the last action did (or why it failed), announced to screen readers. */
function ReportNotice({
  notice,
  onDismiss,
}: {
  notice: { text: string; failed?: boolean } | null;
  onDismiss: () => void;
}) {
  return (
    <div role="status" className="report-notice-slot">
      {notice && (
        <p className={notice.failed ? 'form-error report-notice' : 'notice report-notice'}>
          {notice.text}{' '}
          <button type="button" className="link-button" onClick={onDismiss}>
            Dismiss
          </button>
        </p>
      )}
    </div>
  );
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}
