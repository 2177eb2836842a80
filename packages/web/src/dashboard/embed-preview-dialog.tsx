import { useGenerateSession, useGetUserAttributes, useListGroups } from '@tessera/client/react';
import { useState } from 'react';
import { Dialog } from '../ui/dialog.tsx';
import { CheckboxField, Field } from '../ui/field.tsx';
import { useFormDialog } from '../ui/form-dialog.tsx';
import { attributeValue, type PreviewAttribute } from './embed-preview-values.ts';
import './embed-preview.css';

/** The embed page for a session (spec 4.3; web/src/embed/embed-page.tsx). */
const embedUrl = (publicId: string, sessionId: string) =>
  `/embed/dashboard/${encodeURIComponent(publicId)}?session=${encodeURIComponent(sessionId)}`;

/**
 * "Preview embed…" (issue 23 item 4): the published dashboard as an external user sees it when
 * embedded, for the external id, user attributes and global groups the admin chooses. Each preview
 * is a real session (`POST /api/v1/embed/generate-session`, spec 4.3, ephemeral user) shown in an
 * iframe; the new-tab link carries a second session, as a session is redeemed once. The server
 * checks every value; its problems are shown beside the field they name.
 */
export function EmbedPreviewDialog(props: {
  deploymentId: number;
  publicId: string;
  title: string;
  adminEmail: string;
  onClose: () => void;
}) {
  const attributes = useGetUserAttributes({ params: { query: { first: 1000 } } });
  const groups = useListGroups({ params: { query: { first: 1000 } } });
  const { form, set, setForm, fields, problems, onError, handleSubmit } = useFormDialog(() => ({
    externalId: `preview-${props.adminEmail.split('@')[0]}`,
    values: {} as Record<string, string>,
    groups: [] as string[],
  }));
  // The attributes in the order sent: the server names a bad one by its index (`userAttributes/0/value`).
  const [sent, setSent] = useState<string[]>([]);
  const [preview, setPreview] = useState<{ frame: string; tab: string; externalId: string } | null>(null);
  const generate = useGenerateSession({ onError });
  const items = (attributes.data?.items ?? []) as PreviewAttribute[];

  const submit = handleSubmit(async (f) => {
    const chosen = items.filter((a) => (f.values[a.name] ?? '').trim() !== '');
    setSent(chosen.map((a) => a.name));
    const body = {
      deploymentId: props.deploymentId,
      publicDashboardId: props.publicId,
      externalId: f.externalId.trim(),
      userAttributes: chosen.map((a) => ({ name: a.name, value: attributeValue(a.type, f.values[a.name]) })),
      groups: f.groups,
      isEphemeral: true,
    };
    try {
      const [frame, tab] = await Promise.all([
        generate.mutateAsync({ body }),
        generate.mutateAsync({ body }),
      ]);
      setPreview({
        frame: embedUrl(props.publicId, frame.sessionId),
        tab: embedUrl(props.publicId, tab.sessionId),
        externalId: body.externalId,
      });
    } catch {
      // onError has put the problems beside their fields.
    }
  });

  const problemOf = (name: string) => {
    const i = sent.indexOf(name);
    return i < 0 ? undefined : (fields[`userAttributes/${i}/value`] ?? fields[`userAttributes/${i}/name`]);
  };
  const toggleGroup = (name: string, on: boolean) =>
    setForm((old) => ({
      ...old,
      groups: on ? [...old.groups, name] : old.groups.filter((g) => g !== name),
    }));

  return (
    <Dialog
      title={`Preview embed: ${props.title}`}
      description="What an external user sees when this dashboard is embedded with these values (spec 4.3)."
      onClose={props.onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Close
          </button>
          <button type="submit" className="button button-primary" disabled={generate.isPending}>
            {generate.isPending ? 'Starting…' : preview ? 'Preview again' : 'Show preview'}
          </button>
        </>
      )}
    >
      <div className="emb-preview-form">
        <Field
          label="External user id"
          value={form.externalId}
          onChange={set('externalId')}
          problem={fields.externalId}
          hint="An ephemeral user of this id is created or reused."
          autoFocus
        />
        {items.map((a) => (
          <Field
            key={a.name}
            label={a.displayName || a.name}
            hint={`User attribute ${a.name} (${a.type.replace('_', ' ')}${a.type.endsWith('array') ? ', comma-separated' : ''})`}
            value={form.values[a.name] ?? ''}
            onChange={(value) => setForm((old) => ({ ...old, values: { ...old.values, [a.name]: value } }))}
            problem={problemOf(a.name)}
            placeholder={a.defaultValue ? `Default: ${a.defaultValue}` : 'Not set'}
          />
        ))}
        {attributes.isError && <p className="form-error">The user attributes could not be read.</p>}
        <fieldset className="emb-preview-groups">
          <legend>Global groups</legend>
          {(groups.data?.items ?? []).length === 0 && (
            <p className="field-hint">The account has no groups.</p>
          )}
          {(groups.data?.items ?? []).map((g, i) => (
            <CheckboxField
              key={g.id}
              label={g.name}
              checked={form.groups.includes(g.name)}
              onChange={(on) => toggleGroup(g.name, on)}
              problem={
                fields[`groups/${form.groups.indexOf(g.name)}`] ?? (i === 0 ? fields.groups : undefined)
              }
            />
          ))}
        </fieldset>
      </div>
      {problems.other && (
        <p className="form-error" role="alert">
          The preview could not start: {problems.other}
        </p>
      )}
      {preview && (
        <section className="emb-preview" aria-label="Embedded dashboard">
          <p className="emb-preview-head">
            As <strong>{preview.externalId}</strong>.{' '}
            <a href={preview.tab} target="_blank" rel="noopener noreferrer">
              Open in a new tab
            </a>{' '}
            <span className="field-hint">(works once, within 5 minutes)</span>
          </p>
          <iframe
            key={preview.frame}
            className="emb-preview-frame"
            title="Embed preview"
            src={preview.frame}
          />
        </section>
      )}
    </Dialog>
  );
}
