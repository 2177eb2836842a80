import {
  useCreateOidcTokenConfig,
  useDeleteOidcTokenConfig,
  useListOidcTokenConfigs,
  useUpdateOidcTokenConfig,
} from '@tessera/client/react';
import { useEffect, useId, useState } from 'react';
import { createAppClient } from '../api/client.ts';
import { describeError } from '../api/errors.ts';
import { Card, PageHeader } from '../layout/page.tsx';
import { LoadingState } from '../layout/states.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Field } from '../ui/field.tsx';
import { FormDialog, useFormDialog, useListDialogs } from '../ui/form-dialog.tsx';
import { SettingsList } from '../ui/settings-list.tsx';

interface TokenConfig {
  id: number;
  name: string;
  audienceType: string;
  audience: string;
  subFormat: string | null;
  customClaims: Record<string, unknown> | null;
  targetEnvVar: string | null;
  isEnabled: boolean;
}

/** The external provider users sign in with, if the server has one (TESSERA_OIDC_ISSUER). */
function useSignInProvider(): { name: string } | null | undefined {
  const [provider, setProvider] = useState<{ name: string } | null | undefined>(undefined);
  useEffect(() => {
    createAppClient({ csrfToken: null })
      .GET('/api/v1/session/providers')
      .then(({ data }) => setProvider(data?.oidc ?? null))
      .catch(() => setProvider(null));
  }, []);
  return provider;
}

/**
 * `/settings/oidc` (admin; issue 22 item 8): sign-in through the external OpenID provider (set by
 * the server's environment), and Tessera as an OpenID issuer for deployments: the token configs
 * (reference group OIDC Token Configs) and where a warehouse finds the keys.
 */
export function OidcPage() {
  const provider = useSignInProvider();
  const list = useListOidcTokenConfigs();
  const dialogs = useListDialogs<TokenConfig>();
  const discovery = `${window.location.origin}/.well-known/openid-configuration`;
  return (
    <>
      <PageHeader
        title="OpenID Connect"
        subtitle="Sign-in through your identity provider, and short-lived tokens for warehouses."
      />
      {dialogs.message && (
        <p className="notice" role="status">
          {dialogs.message}
        </p>
      )}
      <Card title="Sign-in with an identity provider">
        {provider === undefined ? (
          <LoadingState />
        ) : provider ? (
          <p>
            Users sign in with <strong>{provider.name}</strong>; its access tokens are accepted by the API as{' '}
            <code>Authorization: Bearer</code>. New users are created at first sign-in.
          </p>
        ) : (
          <p className="muted">
            Not configured. Set <code>TESSERA_OIDC_ISSUER</code>, <code>TESSERA_OIDC_CLIENT_ID</code> and{' '}
            <code>TESSERA_OIDC_CLIENT_SECRET</code> on the server to turn it on.
          </p>
        )}
      </Card>
      <Card
        title="Deployment tokens"
        actions={
          <button type="button" className="button button-primary" onClick={() => dialogs.setEditing('new')}>
            Add token config
          </button>
        }
      >
        <p className="muted">
          Warehouses verify these tokens with the keys published at{' '}
          <a href={discovery} className="break-anywhere">
            {discovery}
          </a>
          .
        </p>
        <SettingsList
          label="Token configs"
          query={list}
          items={list.data}
          keyOf={(config) => config.id}
          nameOf={(config) => config.name}
          details={(config) => (
            <span className="break-anywhere">
              {config.isEnabled ? '' : 'disabled · '}audience {config.audience}
              {config.targetEnvVar ? ` · into ${config.targetEnvVar}` : ''}
            </span>
          )}
          empty="No token configs yet."
          onEdit={dialogs.setEditing}
          onDelete={dialogs.setDeleting}
        />
      </Card>
      {dialogs.editing && (
        <TokenConfigDialog
          config={dialogs.editing === 'new' ? null : dialogs.editing}
          onDone={dialogs.done}
          onClose={() => dialogs.setEditing(null)}
        />
      )}
      {dialogs.deleting && (
        <DeleteDialog
          config={dialogs.deleting}
          onDone={dialogs.done}
          onClose={() => dialogs.setDeleting(null)}
        />
      )}
    </>
  );
}

function TokenConfigDialog(props: {
  config: TokenConfig | null;
  onDone: (m: string) => void;
  onClose: () => void;
}) {
  const old = props.config;
  const { form, set, problems, fields, setProblems, onError, handleSubmit } = useFormDialog(() => ({
    name: old?.name ?? '',
    audienceType: old?.audienceType ?? 'default',
    customAudience: old?.audienceType === 'custom' ? old.audience : '',
    subFormat: old?.subFormat ?? '',
    targetEnvVar: old?.targetEnvVar ?? '',
    customClaims: old?.customClaims ? JSON.stringify(old.customClaims, null, 2) : '',
    isEnabled: old?.isEnabled ?? true,
  }));
  const audienceId = useId();
  const create = useCreateOidcTokenConfig({ onSuccess: (s) => props.onDone(`Added ${s.name}.`), onError });
  const update = useUpdateOidcTokenConfig({ onSuccess: (s) => props.onDone(`Saved ${s.name}.`), onError });

  const submit = handleSubmit((form) => {
    let customClaims: Record<string, unknown> | null = null;
    if (form.customClaims.trim() !== '') {
      try {
        customClaims = JSON.parse(form.customClaims);
      } catch {
        setProblems({
          fields: { customClaims: 'is not JSON: write an object like {"scp": "role"}' },
          other: null,
        });
        return;
      }
    }
    const body = {
      name: form.name.trim() || null,
      audienceType: form.audienceType as 'default' | 'custom',
      customAudience: form.audienceType === 'custom' ? form.customAudience.trim() || null : null,
      subFormat: form.subFormat.trim() || null,
      targetEnvVar: form.targetEnvVar.trim() || null,
      customClaims,
      isEnabled: form.isEnabled,
    };
    if (old) update.mutate({ params: { path: { id: old.id } }, body });
    else create.mutate({ body });
  });
  return (
    <FormDialog
      title={old ? `Edit ${old.name}` : 'Add token config'}
      onClose={props.onClose}
      onSubmit={submit}
      pending={create.isPending || update.isPending}
      problems={problems}
    >
      <Field
        label="Name"
        value={form.name}
        onChange={set('name')}
        problem={fields.name}
        hint="Lowercase letters, digits and hyphens."
        autoFocus
      />
      <div className="field">
        <label htmlFor={audienceId}>Audience</label>
        <select
          id={audienceId}
          value={form.audienceType}
          onChange={(e) => set('audienceType')(e.target.value)}
        >
          <option value="default">This server (the issuer URL)</option>
          <option value="custom">Custom</option>
        </select>
      </div>
      {form.audienceType === 'custom' && (
        <Field
          label="Custom audience"
          value={form.customAudience}
          onChange={set('customAudience')}
          problem={fields.customAudience}
        />
      )}
      <Field
        label="Subject format"
        value={form.subFormat}
        onChange={set('subFormat')}
        problem={fields.subFormat}
        hint="Default deployment:{deployment_id}; also {component} and {region}."
      />
      <Field
        label="Target env variable"
        value={form.targetEnvVar}
        onChange={set('targetEnvVar')}
        problem={fields.targetEnvVar}
        hint="The deployment variable that carries the token, e.g. SNOWFLAKE_TOKEN."
      />
      <Field
        label="Custom claims (JSON)"
        value={form.customClaims}
        onChange={set('customClaims')}
        problem={fields.customClaims}
        multiline
      />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={form.isEnabled}
          onChange={(e) => set('isEnabled')(e.target.checked)}
        />{' '}
        Enabled
      </label>
    </FormDialog>
  );
}

function DeleteDialog(props: { config: TokenConfig; onDone: (m: string) => void; onClose: () => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const remove = useDeleteOidcTokenConfig({
    onSuccess: () => props.onDone(`Deleted ${props.config.name}.`),
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <ConfirmDialog
      title={`Delete ${props.config.name}?`}
      description="Deployments stop receiving its tokens."
      action="Delete"
      pendingAction="Deleting…"
      pending={remove.isPending}
      onConfirm={() => remove.mutate({ params: { path: { id: props.config.id } } })}
      problem={problem}
      onClose={props.onClose}
    />
  );
}
