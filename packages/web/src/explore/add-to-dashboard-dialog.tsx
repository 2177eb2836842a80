import { isApiError } from '@tessera/client';
import {
  useCreateReport,
  useGetWorkbook,
  useGetWorkbooks,
  useUpdateWorkbookDashboard,
} from '@tessera/client/react';
import { type DashboardDraft, dashboardTabs } from '@tessera/dashboard';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { addReportWidget } from '../dashboard/edit/draft-model.ts';
import { Dialog } from '../ui/dialog.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

export interface AddedToDashboard {
  workbookId: number;
  workbookName: string;
  widgetTitle: string;
}

/**
 * "Add to dashboard" from Explore (issue 23 item 1): the question becomes a chart widget on a
 * workbook's dashboard draft. A published dashboard shows reports as they were when it was
 * published (spec 2.3 `reportSnapshots`), so the widget's query is kept the one way a published
 * version can carry it: a report of that workbook holding the query and its chart, which the new
 * widget names. The draft is saved with its version check (a 409 when another editor saved in
 * between), read again and retried, so that nobody's draft is overwritten.
 */
export function AddToDashboardDialog(props: {
  deploymentId: number;
  query: Record<string, unknown>;
  spec: Record<string, unknown> | null;
  defaultTitle: string;
  onAdded: (added: AddedToDashboard) => void;
  onClose: () => void;
}) {
  const { deploymentId } = props;
  const id = useId();
  // Read again each time the dialog opens: a workbook made since (in another tab, say) is listed.
  const workbooks = useGetWorkbooks({ params: { path: { deploymentId } } }, { refetchOnMount: 'always' });
  const [workbookId, setWorkbookId] = useState('');
  const [title, setTitle] = useState(props.defaultTitle);
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [busy, setBusy] = useState(false);
  const [tabId, setTabId] = useState('');
  // Read once a workbook is chosen, for its tabs; read again right before the save.
  const workbook = useGetWorkbook(
    { params: { path: { deploymentId, workbookId: Number(workbookId) || 0 } } },
    { enabled: Number(workbookId) > 0 },
  );
  const tabs =
    workbook.data && workbook.data.id === Number(workbookId) ? dashboardTabs(draftOf(workbook.data)) : [];
  const createReport = useCreateReport();
  const saveDraft = useUpdateWorkbookDashboard();
  const list = workbooks.data?.data ?? [];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const fields: Record<string, string> = {};
    if (!workbookId) fields.workbookId = 'Choose the dashboard to add the chart to';
    if (title.trim() === '') fields.name = 'Name the chart';
    setProblems({ fields, other: null });
    if (Object.keys(fields).length > 0) return;
    setBusy(true);
    try {
      const report = await createReport.mutateAsync({
        params: { path: { deploymentId } },
        body: {
          name: title.trim(),
          jsonQuery: JSON.stringify(props.query),
          spec: props.spec ? JSON.stringify(props.spec) : null,
          workbookId: Number(workbookId),
        },
      });
      const name = await addToDraft(report.id);
      props.onAdded({ workbookId: Number(workbookId), workbookName: name, widgetTitle: report.name });
    } catch (error) {
      setProblems(problemsOf(error));
    } finally {
      setBusy(false);
    }
  };

  /** Adds the widget to the workbook's draft as the server has it now; returns the workbook's name. */
  const addToDraft = async (reportId: number): Promise<string> => {
    for (let attempt = 0; ; attempt++) {
      const read = await workbook.refetch({ throwOnError: true });
      const wb = read.data;
      if (!wb) throw new Error('The workbook could not be read');
      const draft = draftOf(wb);
      // On a tabbed dashboard the chart goes on the chosen tab (the first when none was chosen,
      // or when another editor deleted it meanwhile), under its widgets.
      const onDraft = dashboardTabs(draft);
      const tab = onDraft.find((t) => t.id === tabId) ?? onDraft[0];
      const added = addReportWidget(draft, reportId, tab?.id ?? null);
      try {
        await saveDraft.mutateAsync({
          params: { path: { deploymentId, workbookId: wb.id } },
          body: { dashboardDraft: added.draft, expectedDraftVersion: wb.dashboardDraftVersion },
        });
        return wb.name;
      } catch (error) {
        if (!(isApiError(error) && error.status === 409) || attempt >= 2) throw error;
      }
    }
  };

  return (
    <Dialog
      title="Add to a dashboard"
      onClose={props.onClose}
      onSubmit={(e) => void submit(e)}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add chart'}
          </button>
        </>
      )}
    >
      <div className="field">
        <label htmlFor={`${id}-w`}>Dashboard</label>
        <select
          id={`${id}-w`}
          value={workbookId}
          onChange={(e) => {
            setWorkbookId(e.target.value);
            setTabId('');
            // A choice answers the problem said beside the field.
            setProblems(({ fields: { workbookId: _answered, ...fields }, other }) => ({ fields, other }));
          }}
          aria-invalid={problems.fields.workbookId !== undefined}
          aria-describedby={problems.fields.workbookId ? `${id}-wp` : undefined}
        >
          <option value="">{workbooks.isPending ? 'Loading workbooks…' : 'Choose a workbook…'}</option>
          {list.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
        {problems.fields.workbookId ? (
          <p id={`${id}-wp`} className="field-error">
            {problems.fields.workbookId}
          </p>
        ) : null}
        <p className="field-hint">
          The chart goes on the workbook’s dashboard draft; publish it from the editor.
        </p>
      </div>
      {tabs.length > 0 ? (
        <div className="field">
          <label htmlFor={`${id}-t`}>Tab</label>
          <select id={`${id}-t`} value={tabId || tabs[0].id} onChange={(e) => setTabId(e.target.value)}>
            {tabs.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <Field label="Chart title" value={title} onChange={setTitle} problem={problems.fields.name} />
      {problems.other ? (
        <p className="form-error" role="alert">
          It could not be added: {problems.other}
        </p>
      ) : null}
    </Dialog>
  );
}

/** The dashboard the editor would open: the saved draft, else the published one. */
function draftOf(wb: { dashboardDraft?: unknown; dashboardPublished?: unknown }): DashboardDraft {
  return (wb.dashboardDraft ?? wb.dashboardPublished ?? { widgets: [] }) as DashboardDraft;
}

/** After an add: where the chart went, with the way to the editor. */
export function AddedNotice(props: { deploymentId: number; added: AddedToDashboard; onDismiss: () => void }) {
  return (
    <p className="notice ex-notice">
      Added “{props.added.widgetTitle}” to the dashboard draft of {props.added.workbookName}.{' '}
      <Link to={`/workspace/${props.deploymentId}/workbooks/${props.added.workbookId}/edit`}>
        Open the editor
      </Link>{' '}
      <button type="button" className="link-button" onClick={props.onDismiss}>
        Dismiss
      </button>
    </p>
  );
}
