import {
  useCreateOAuthIntegration,
  useDeleteOAuthIntegration,
  useListOAuthIntegrations,
  useUpdateOAuthIntegration,
} from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';
import { PageHeader } from '../layout/page.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Field } from '../ui/field.tsx';
import { FormDialog, useFormDialog, useListDialogs } from '../ui/form-dialog.tsx';
import { SettingsList } from '../ui/settings-list.tsx';

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
  const dialogs = useListDialogs<Integration>();
  return (
    <>
      <PageHeader
        title="OAuth integrations"
        subtitle="Services users connect their own accounts at, for data queried with their own tokens."
        actions={
          <button type="button" className="button button-primary" onClick={() => dialogs.setEditing('new')}>
            Add integration
          </button>
        }
      />
      {dialogs.message && (
        <p className="notice" role="status">
          {dialogs.message}
        </p>
      )}
      <SettingsList
        label="OAuth integrations"
        query={list}
        items={list.data}
        keyOf={(integration) => integration.id}
        nameOf={(integration) => integration.name}
        details={(integration) => (
          <>
            {integration.type} · client <code>{integration.clientId}</code> ·{' '}
            {new URL(integration.authUrl).host}
          </>
        )}
        empty="No OAuth integrations yet."
        emptyHint="Add one to let users connect their accounts."
        onEdit={dialogs.setEditing}
        onDelete={dialogs.setDeleting}
      />
      {dialogs.editing && (
        <IntegrationDialog
          integration={dialogs.editing === 'new' ? null : dialogs.editing}
          onDone={dialogs.done}
          onClose={() => dialogs.setEditing(null)}
        />
      )}
      {dialogs.deleting && (
        <DeleteDialog
          integration={dialogs.deleting}
          onDone={dialogs.done}
          onClose={() => dialogs.setDeleting(null)}
        />
      )}
    </>
  );
}

function IntegrationDialog(props: {
  integration: Integration | null;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const old = props.integration;
  const { form, set, problems, fields, onError, handleSubmit } = useFormDialog(() => ({
    name: old?.name ?? '',
    type: old?.type ?? 'generic',
    authUrl: old?.authUrl ?? '',
    tokenUrl: old?.tokenUrl ?? '',
    revocationUrl: typeof old?.config?.revocationUrl === 'string' ? old.config.revocationUrl : '',
    clientId: old?.clientId ?? '',
    clientSecret: '',
    redirectUri: old?.redirectUri ?? callbackUrl(),
    scopes: (old?.scopes ?? []).join(' '),
  }));
  const create = useCreateOAuthIntegration({ onSuccess: (s) => props.onDone(`Added ${s.name}.`), onError });
  const update = useUpdateOAuthIntegration({ onSuccess: (s) => props.onDone(`Saved ${s.name}.`), onError });

  const submit = handleSubmit(({ revocationUrl, clientSecret, scopes, ...rest }) => {
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
  });
  return (
    <FormDialog
      title={old ? `Edit ${old.name}` : 'Add OAuth integration'}
      onClose={props.onClose}
      onSubmit={submit}
      pending={create.isPending || update.isPending}
      problems={problems}
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
    </FormDialog>
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
