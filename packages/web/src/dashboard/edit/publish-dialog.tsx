import { usePublishDashboard } from '@tessera/client/react';
import type { DashboardDraft } from '@tessera/dashboard';
import { type FormEvent, useState } from 'react';
import { Dialog } from '../../ui/dialog.tsx';
import { Field } from '../../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../../ui/problems.ts';
import { type DraftDiff, diffDrafts, isEmptyDiff } from './diff.ts';
import { type ReportInfo, widgetName } from './editor-grid.tsx';

type Published = Awaited<ReturnType<ReturnType<typeof usePublishDashboard>['mutateAsync']>>;

/**
 * Publish (spec 4.4; issue 23 item 2): what the draft changes against the published version, then
 * a title and a description for the new version. Publishes the draft as the editor shows it.
 */
export function PublishDialog(props: {
  deploymentId: number;
  workbookId: number;
  draft: DashboardDraft;
  published: DashboardDraft | null;
  publishedTitle: string | null;
  reports: ReadonlyMap<number, ReportInfo>;
  onClose: () => void;
  onPublished: (published: Published) => void;
}) {
  const publish = usePublishDashboard();
  const [title, setTitle] = useState(props.draft.title ?? props.publishedTitle ?? '');
  const [description, setDescription] = useState(props.draft.description ?? '');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const diff = diffDrafts(props.published, props.draft);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const config = { ...props.draft, title: title || null, description: description || null };
      const answer = await publish.mutateAsync({
        params: { path: { deploymentId: props.deploymentId, workbookId: props.workbookId } },
        body: {
          workbookId: props.workbookId,
          title: title || null,
          description: description || null,
          config,
        },
      });
      props.onPublished(answer);
    } catch (error) {
      setProblems(problemsOf(error));
    }
  };
  const names = (ids: string[]) =>
    ids.map((id) => {
      const w = [...(props.draft.widgets ?? []), ...(props.published?.widgets ?? [])].find(
        (x) => x.id === id,
      );
      return w ? widgetName({ id, config: w.config }, props.reports) : id;
    });
  return (
    <Dialog
      title="Publish the dashboard"
      onClose={props.onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={publish.isPending}>
            {publish.isPending ? 'Publishing…' : 'Publish'}
          </button>
        </>
      )}
    >
      <DiffList diff={diff} names={names} firstPublish={props.published === null} />
      <Field label="Title" value={title} onChange={setTitle} problem={problems.fields.title} />
      <Field
        label="Description"
        value={description}
        onChange={setDescription}
        multiline
        problem={problems.fields.description}
      />
      {Object.entries(problems.fields)
        .filter(([f]) => f !== 'title' && f !== 'description')
        .map(([f, m]) => (
          <p key={f} className="field-error" role="alert">
            {f}: {m}
          </p>
        ))}
      {problems.other ? (
        <p className="field-error" role="alert">
          {problems.other}
        </p>
      ) : null}
    </Dialog>
  );
}

function DiffList({
  diff,
  names,
  firstPublish,
}: {
  diff: DraftDiff;
  names: (ids: string[]) => string[];
  firstPublish: boolean;
}) {
  if (isEmptyDiff(diff)) {
    return <p className="tsr-diff-none">No changes since the published version.</p>;
  }
  const rows: [string, string, string][] = [];
  if (diff.added.length) rows.push(['added', 'Widgets added', names(diff.added).join(', ')]);
  if (diff.removed.length) rows.push(['removed', 'Widgets removed', names(diff.removed).join(', ')]);
  if (diff.changed.length)
    rows.push([
      'changed',
      'Widgets changed',
      diff.changed.map((c) => `${names([c.id])[0]} (${c.what.join(', ')})`).join('; '),
    ]);
  if (diff.filtersAdded.length)
    rows.push(['added', 'Filters added', diff.filtersAdded.map(filterText).join(', ')]);
  if (diff.filtersRemoved.length)
    rows.push(['removed', 'Filters removed', diff.filtersRemoved.map(filterText).join(', ')]);
  if (diff.filtersChanged.length)
    rows.push(['changed', 'Filter defaults changed', diff.filtersChanged.map(filterText).join(', ')]);
  if (diff.grainsMode === 'automatic')
    rows.push(['changed', 'Time-grain switchers', 'back to one per time dimension']);
  if (diff.grainsAdded.length)
    rows.push(['added', 'Time-grain switchers added', diff.grainsAdded.map(grainText).join('; ')]);
  if (diff.grainsRemoved.length)
    rows.push(['removed', 'Time-grain switchers removed', diff.grainsRemoved.map(grainText).join('; ')]);
  if (diff.grainsChanged.length)
    rows.push(['changed', 'Time-grain switchers changed', diff.grainsChanged.map(grainText).join('; ')]);
  if (diff.grainsMode === 'configured' && diff.grainsAdded.length === 0)
    rows.push(['removed', 'Time-grain switchers', 'none offered']);
  if (diff.tabsAdded.length) rows.push(['added', 'Tabs added', diff.tabsAdded.join(', ')]);
  if (diff.tabsRemoved.length) rows.push(['removed', 'Tabs removed', diff.tabsRemoved.join(', ')]);
  if (diff.tabsRenamed.length)
    rows.push(['changed', 'Tabs renamed', diff.tabsRenamed.map(([a, b]) => `${a} → ${b}`).join(', ')]);
  if (diff.tabsReordered) rows.push(['changed', 'Tabs', 'reordered']);
  if (diff.themeChanged) rows.push(['changed', 'Theme', 'changed']);
  if (diff.other.length) rows.push(['changed', 'Also changed', diff.other.join(', ')]);
  return (
    <section className="tsr-diff" aria-label="Changes to publish">
      <h3>{firstPublish ? 'First version' : 'Changes since the published version'}</h3>
      <dl>
        {rows.map(([kind, label, text]) => (
          <div key={label} className={`tsr-diff-${kind}`}>
            <dt>{label}</dt>
            <dd>{text}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function filterText(f: { member: string; defaultValue?: string }) {
  return f.defaultValue ? `${f.member} = ${f.defaultValue}` : f.member;
}

function grainText(g: { member: string; grains: string[]; defaultGrain?: string }) {
  return `${g.member}: ${g.grains.join(', ')}${g.defaultGrain ? ` (starts at ${g.defaultGrain})` : ''}`;
}
