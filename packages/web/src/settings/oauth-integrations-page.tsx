import {
  useCreateOAuthIntegration,
  useDeleteOAuthIntegration,
  useListOAuthIntegrations,
  useUpdateOAuthIntegration,
} from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { describeError } from '../api/errors.ts';
import { PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

interface Integration {
  id: number;
  name: string;
  type: string;
  authUrl: string;
  tokenUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: string[] | null;
  config: Record<string, unknown> | null;
}

/** Where the provider sends users back: this server's callback, to register with the provider. */
const callbackUrl = () => `${window.location.origin}/api/v1/oauth/callback`;

/**
 * `/settings/oauth-integrations` (admin; issue 22 item 8): the providers users can connect their
 * accounts at (reference group OAuth Integrations). The client secret is write-only.
 */
export function OAuthIntegrationsPage() {
  const list = useListOAuthIntegrations();
  const [editing, setEditing] = useState<Integration | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Integration | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const done = (text: string) => {
    setEditing(null);
    setDeleting(null);
    setMessage(text);
  };
  return (
    <>
      <PageHeader
        title="OAuth integrations"
        subtitle="Services users connect their own accounts at, for data queried with their own tokens."
        actions={
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            Add integration
          </button>
        }
      />
      {message && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
      {list.isPending ? (
        <LoadingState />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No OAuth integrations yet.">
          Add one to let users connect their accounts.
        </EmptyState>
      ) : (
        <ul className="settings-list" aria-label="OAuth integrations">
          {list.data.map((integration) => (
            <li key={integration.id} className="settings-row">
              <div className="settings-row-text">
                <h2>{integration.name}</h2>
                <p className="muted">
                  {integration.type} · client <code>{integration.clientId}</code> ·{' '}
                  {new URL(integration.authUrl).host}
                </p>
              </div>
              <div className="settings-row-actions">
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => setEditing(integration)}
                >
                  Edit<span className="visually-hidden"> {integration.name}</span>
                </button>
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => setDeleting(integration)}
                >
                  Delete<span className="visually-hidden"> {integration.name}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {editing && (
        <IntegrationDialog
          integration={editing === 'new' ? null : editing}
          onDone={done}
          onClose={() => setEditing(null)}
        />
      )}
      {deleting && <DeleteDialog integration={deleting} onDone={done} onClose={() => setDeleting(null)} />}
    </>
  );
}

function IntegrationDialog(props: {
  integration: Integration | null;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const old = props.integration;
  const [form, setForm] = useState({
    name: old?.name ?? '',
    type: old?.type ?? 'generic',
    authUrl: old?.authUrl ?? '',
    tokenUrl: old?.tokenUrl ?? '',
    revocationUrl: typeof old?.config?.revocationUrl === 'string' ? old.config.revocationUrl : '',
    clientId: old?.clientId ?? '',
    clientSecret: '',
    redirectUri: old?.redirectUri ?? callbackUrl(),
    scopes: (old?.scopes ?? []).join(' '),
  });
  const [problems, setProblems] = useState<Problems>(noProblems);
  const set = (name: keyof typeof form) => (value: string) => setForm({ ...form, [name]: value });
  const onError = (error: unknown) => setProblems(problemsOf(error));
  const create = useCreateOAuthIntegration({ onSuccess: (s) => props.onDone(`Added ${s.name}.`), onError });
  const update = useUpdateOAuthIntegration({ onSuccess: (s) => props.onDone(`Saved ${s.name}.`), onError });
  const pending = create.isPending || update.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    const { revocationUrl, clientSecret, scopes, ...rest } = form;
    const body = {
      ...rest,
      name: rest.name.trim(),
      scopes: scopes.split(/\s+/).filter(Boolean),
      config: { ...(old?.config ?? {}), revocationUrl: revocationUrl.trim() || undefined },
    };
    if (old)
      update.mutate({
        params: { path: { id: old.id } },
        body: { ...body, clientSecret: clientSecret || null },
      });
    else create.mutate({ body: { ...body, clientSecret } });
  };
  const fields = problems.fields;
  return (
    <Dialog
      title={old ? `Edit ${old.name}` : 'Add OAuth integration'}
      onClose={props.onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {pending ? 'Saving…' : 'Save'}
          </button>
        </>
      )}
    >
      <Field label="Name" value={form.name} onChange={set('name')} problem={fields.name} autoFocus />
      <Field
        label="Type"
        value={form.type}
        onChange={set('type')}
        problem={fields.type}
        hint="generic, snowflake, github…"
      />
      <Field
        label="Authorization URL"
        type="url"
        value={form.authUrl}
        onChange={set('authUrl')}
        problem={fields.authUrl}
      />
      <Field
        label="Token URL"
        type="url"
        value={form.tokenUrl}
        onChange={set('tokenUrl')}
        problem={fields.tokenUrl}
      />
      <Field
        label="Revocation URL (optional)"
        type="url"
        value={form.revocationUrl}
        onChange={set('revocationUrl')}
        problem={fields['config/revocationUrl']}
        hint="Disconnecting revokes the user's token there (RFC 7009)."
      />
      <Field label="Client ID" value={form.clientId} onChange={set('clientId')} problem={fields.clientId} />
      <Field
        label="Client secret"
        type="password"
        value={form.clientSecret}
        onChange={set('clientSecret')}
        problem={fields.clientSecret}
        hint={
          old
            ? 'Leave empty to keep the stored secret. It is never shown again.'
            : 'Stored encrypted; never shown again.'
        }
      />
      <Field
        label="Redirect URI"
        type="url"
        value={form.redirectUri}
        onChange={set('redirectUri')}
        problem={fields.redirectUri}
        hint="Register this address with the provider."
      />
      <Field
        label="Scopes"
        value={form.scopes}
        onChange={set('scopes')}
        problem={fields.scopes}
        hint="Separated by spaces."
      />
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

function DeleteDialog(props: {
  integration: Integration;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteOAuthIntegration({
    onSuccess: () => props.onDone(`Deleted ${props.integration.name}.`),
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <ConfirmDialog
      title={`Delete ${props.integration.name}?`}
      description="Every user's connection through it is removed too."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => remove.mutate({ params: { path: { id: props.integration.id } } })}
      problem={problem}
      onClose={props.onClose}
    />
  );
}
