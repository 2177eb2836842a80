import { type DashboardDraft, dashboardTabs } from '@tessera/dashboard';
import { type FormEvent, useId, useState } from 'react';
import { ConfirmDialog } from '../../ui/confirm-dialog.tsx';
import { widgetsOnTabCount } from './tabs-model.ts';

/**
 * The dashboard's tabs (settings.tabs): add one, rename, move earlier or later, delete (asking
 * first when the tab holds widgets, which go with it). Which tab the grid shows is chosen in the
 * tab list above it.
 */
export function TabsPanel(props: {
  draft: DashboardDraft;
  onAdd: (title: string) => void;
  onRename: (id: string, title: string) => void;
  onMove: (id: string, by: -1 | 1) => void;
  onDelete: (id: string) => void;
}) {
  const tabs = dashboardTabs(props.draft);
  const id = useId();
  const [title, setTitle] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<{ id: string; title: string; widgets: number } | null>(null);
  const add = (e: FormEvent) => {
    e.preventDefault();
    const t = title.trim();
    if (t === '') return setProblem('Name the tab');
    if (tabs.some((x) => x.title === t)) return setProblem('There is a tab of this name already');
    setProblem(null);
    props.onAdd(t);
    setTitle('');
  };
  return (
    <section className="tsr-edit-panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Tabs</h2>
      {tabs.length === 0 ? (
        <p className="tsr-edit-muted">
          No tabs: one page of widgets. The first tab you add puts the widgets there are on a tab of their
          own.
        </p>
      ) : null}
      <ol className="tsr-edit-list">
        {tabs.map((t, i) => (
          <li key={t.id} data-edit-tab={t.id} className="tsr-edit-row">
            <label htmlFor={`${id}-${t.id}`} className="visually-hidden">
              Name of tab {i + 1}
            </label>
            <input
              id={`${id}-${t.id}`}
              className="tsr-edit-tab-name"
              value={t.title}
              onChange={(e) => props.onRename(t.id, e.target.value)}
            />
            <button
              type="button"
              className="button"
              aria-label={`Move ${t.title} earlier`}
              disabled={i === 0}
              onClick={() => props.onMove(t.id, -1)}
            >
              ↑
            </button>
            <button
              type="button"
              className="button"
              aria-label={`Move ${t.title} later`}
              disabled={i === tabs.length - 1}
              onClick={() => props.onMove(t.id, 1)}
            >
              ↓
            </button>
            <button
              type="button"
              className="tsr-edit-remove"
              aria-label={`Delete the tab ${t.title}`}
              onClick={() => {
                const widgets = widgetsOnTabCount(props.draft, t.id);
                if (widgets === 0 || tabs.length === 1) props.onDelete(t.id);
                else setDeleting({ id: t.id, title: t.title, widgets });
              }}
            >
              ×
            </button>
          </li>
        ))}
      </ol>
      <form onSubmit={add} noValidate className="tsr-edit-form">
        <label htmlFor={`${id}-t`}>New tab’s name</label>
        <input
          id={`${id}-t`}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${id}-p` : undefined}
        />
        {problem ? (
          <p id={`${id}-p`} className="field-error">
            {problem}
          </p>
        ) : null}
        <button type="submit" className="button">
          Add tab
        </button>
      </form>
      {deleting ? (
        <ConfirmDialog
          title={`Delete the tab ${deleting.title}?`}
          description={`Its ${deleting.widgets === 1 ? 'widget goes' : `${deleting.widgets} widgets go`} with it. Undo (Ctrl+Z) brings them back.`}
          action="Delete tab"
          pendingAction="Deleting…"
          pending={false}
          problem={null}
          onConfirm={() => {
            props.onDelete(deleting.id);
            setDeleting(null);
          }}
          onClose={() => setDeleting(null)}
        />
      ) : null}
    </section>
  );
}
