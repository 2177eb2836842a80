import type { DashboardDraft, DashboardTab, Widget } from '@tessera/dashboard';
import { widgetText, widgetTitle } from '@tessera/dashboard';
import { type FormEvent, useId, useState } from 'react';
import { type DraftFilter, draftFilters } from './draft-model.ts';
import type { ReportInfo } from './editor-grid.tsx';

/** Adds a chart of one of the deployment's reports, a text or a heading. */
export function AddWidgets(props: {
  reports: ReportInfo[];
  loading: boolean;
  onAddReport: (id: number) => void;
  onAddText: (kind: 'text' | 'heading') => void;
}) {
  const [reportId, setReportId] = useState('');
  const id = useId();
  return (
    <section className="tsr-edit-panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Add a widget</h2>
      <form
        className="tsr-edit-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (reportId) props.onAddReport(Number(reportId));
        }}
      >
        <label htmlFor={`${id}-r`} className="visually-hidden">
          Report
        </label>
        <select id={`${id}-r`} value={reportId} onChange={(e) => setReportId(e.target.value)}>
          <option value="">{props.loading ? 'Loading reports…' : 'Choose a report…'}</option>
          {props.reports.map((r) => (
            <option key={r.id} value={r.id}>
              {r.title || r.name}
            </option>
          ))}
        </select>
        <button type="submit" className="button" disabled={!reportId}>
          Add chart
        </button>
      </form>
      <div className="tsr-edit-row">
        <button type="button" className="button" onClick={() => props.onAddText('text')}>
          Add text
        </button>
        <button type="button" className="button" onClick={() => props.onAddText('heading')}>
          Add heading
        </button>
      </div>
    </section>
  );
}

/** Members look like `cube.member` (spec: the model's names). */
const memberPattern = /^[A-Za-z_][\w]*\.[A-Za-z_][\w.]*$/;

/** The dashboard's filters: each bound to a member, with an optional default value. */
export function FiltersPanel(props: {
  draft: DashboardDraft;
  /** Dimensions the draft's reports group by: offered first. */
  suggestions: string[];
  onChange: (filters: DraftFilter[]) => void;
}) {
  const filters = draftFilters(props.draft);
  const [member, setMember] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();
  const add = (e: FormEvent) => {
    e.preventDefault();
    const m = member.trim();
    if (!memberPattern.test(m)) return setProblem('Name a member as cube.member, e.g. orders.status');
    if (filters.some((f) => f.member === m)) return setProblem('The dashboard already filters this member');
    setProblem(null);
    props.onChange([...filters, { member: m, ...(value.trim() ? { defaultValue: value.trim() } : {}) }]);
    setMember('');
    setValue('');
  };
  return (
    <section className="tsr-edit-panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Filters</h2>
      {filters.length === 0 ? <p className="tsr-edit-muted">No dashboard filters.</p> : null}
      <ul className="tsr-edit-list">
        {filters.map((f) => (
          <li key={f.member} data-filter={f.member}>
            <span>
              <code>{f.member}</code>
              {f.defaultValue ? <span className="tsr-edit-muted"> = {f.defaultValue}</span> : null}
            </span>
            <button
              type="button"
              className="tsr-edit-remove"
              aria-label={`Remove the filter on ${f.member}`}
              onClick={() => props.onChange(filters.filter((x) => x.member !== f.member))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={add} noValidate className="tsr-edit-form">
        <label htmlFor={`${id}-m`}>Member</label>
        <input
          id={`${id}-m`}
          list={`${id}-list`}
          value={member}
          onChange={(e) => setMember(e.target.value)}
          placeholder="orders.status"
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${id}-p` : undefined}
        />
        <datalist id={`${id}-list`}>
          {props.suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        {problem ? (
          <p id={`${id}-p`} className="field-error">
            {problem}
          </p>
        ) : null}
        <label htmlFor={`${id}-v`}>Default value (optional)</label>
        <input id={`${id}-v`} value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit" className="button">
          Add filter
        </button>
      </form>
    </section>
  );
}

/** The selected widget's title and, for a text widget, its Markdown. */
export function WidgetPanel(props: {
  widget: Widget | null;
  name: string;
  onChange: (changes: Record<string, unknown>, key: string) => void;
  /** The dashboard's tabs, the widget's, and a move to another (under its widgets). */
  tabs: readonly DashboardTab[];
  tabId: string | null;
  onMoveToTab: (tabId: string) => void;
}) {
  const id = useId();
  const { widget } = props;
  if (!widget) {
    return (
      <section className="tsr-edit-panel">
        <h2>Widget</h2>
        <p className="tsr-edit-muted">Select a widget to edit its title or text.</p>
      </section>
    );
  }
  const text = widgetText(widget);
  return (
    <section className="tsr-edit-panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Widget: {props.name}</h2>
      <label htmlFor={`${id}-t`}>Title</label>
      <input
        id={`${id}-t`}
        value={widgetTitle(widget) ?? ''}
        placeholder={props.name}
        onChange={(e) => props.onChange({ title: e.target.value || undefined }, `title:${widget.id}`)}
      />
      {props.tabs.length > 0 ? (
        <>
          <label htmlFor={`${id}-tab`}>Tab</label>
          <select
            id={`${id}-tab`}
            value={props.tabId ?? ''}
            onChange={(e) => props.onMoveToTab(e.target.value)}
          >
            {props.tabs.map((t) => (
              <option key={t.id} value={t.id}>
                {t.title}
              </option>
            ))}
          </select>
        </>
      ) : null}
      {text !== null ? (
        <>
          <label htmlFor={`${id}-x`}>Text (Markdown)</label>
          <textarea
            id={`${id}-x`}
            rows={6}
            value={text}
            onChange={(e) => props.onChange({ text: e.target.value }, `text:${widget.id}`)}
          />
        </>
      ) : null}
    </section>
  );
}
