import type { SuccessBody } from '@tessera/client';
import { useCreateApiKey, useGetDeployments, useListApiKeys, useRevokeApiKey } from '@tessera/client/react';
import { type FormEvent, useId, useState } from 'react';
import { DateText, PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field, SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

type ApiKey = SuccessBody<'/api/v1/api-keys', 'get'>['items'][number];
type Kind = ApiKey['kind'];

const kindOptions = [
  { value: 'api', label: 'Management API' },
  { value: 'scim', label: 'SCIM provisioning' },
] as const satisfies readonly { value: Kind; label: string }[];

/**
 * Settings › API keys (issue 22 item 8): the account's keys with their scope and use; a new key
 * is shown once, right after it is made (only its hash is kept); revoking one ends it at once.
 */
export function ApiKeysPage() {
  const keys = useListApiKeys(
    { params: { query: { first: 1000 } } },
    { placeholderData: (previous) => previous },
  );
  const deployments = useGetDeployments({ params: { query: { first: 1000 } } });
  const names = new Map((deployments.data?.items ?? []).map((d) => [d.id, d.name]));
  const [dialog, setDialog] = useState<
    | { kind: 'create' }
    | { kind: 'created'; key: string; name: string }
    | { kind: 'revoke'; key: ApiKey }
    | null
  >(null);
  const [status, setStatus] = useState('');
  const list = keys.data?.items ?? [];
  const scope = (key: ApiKey) =>
    key.deploymentIds === null
      ? 'Every deployment'
      : key.deploymentIds.map((id) => names.get(id) ?? `#${id}`).join(', ');
  return (
    <>
      <PageHeader
        title="API keys"
        subtitle="Keys for scripts and identity providers. Treat a key for every deployment like a password."
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={() => setDialog({ kind: 'create' })}
          >
            Create key
          </button>
        }
      />
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {status && <p className="notice">{status}</p>}
      {keys.isPending ? (
        <LoadingState label="Loading keys…" />
      ) : keys.isError && !keys.data ? (
        <ErrorState error={keys.error} onRetry={() => keys.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState title="No API keys yet." />
      ) : (
        <ul className="settings-list" aria-label="API keys">
          {list.map((key) => (
            <li key={key.id}>
              <div className="settings-list-text">
                <span className="settings-list-name">{key.name}</span>
                <span className="muted">
                  <code>{key.prefix}…</code> · {scope(key)}
                </span>
                <span className="muted">
                  Created <DateText value={key.createdAt} />, last used <DateText value={key.lastUsedAt} />
                </span>
                <span className="settings-list-tags">
                  <span className="tag tag-muted">{key.kind === 'scim' ? 'SCIM' : 'API'}</span>
                </span>
              </div>
              <div className="settings-list-actions">
                <button
                  type="button"
                  className="button button-ghost"
                  aria-label={`Revoke ${key.name}`}
                  onClick={() => setDialog({ kind: 'revoke', key })}
                >
                  Revoke
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {dialog?.kind === 'create' && (
        <CreateKeyDialog
          deployments={deployments.data?.items ?? []}
          onCreated={(key, name) => setDialog({ kind: 'created', key, name })}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'created' && (
        <ShowKeyDialog
          name={dialog.name}
          secret={dialog.key}
          onClose={() => {
            setDialog(null);
            setStatus(`Created the key ${dialog.name}.`);
          }}
        />
      )}
      {dialog?.kind === 'revoke' && (
        <RevokeDialog
          apiKey={dialog.key}
          onDone={(message) => {
            setDialog(null);
            setStatus(message);
          }}
          onClose={() => setDialog(null)}
        />
      )}
    </>
  );
}

function CreateKeyDialog({
  deployments,
  onCreated,
  onClose,
}: {
  deployments: { id: number; name: string }[];
  onCreated: (key: string, name: string) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('api');
  const [scope, setScope] = useState<'all' | 'some'>('all');
  const [chosen, setChosen] = useState<Set<number>>(new Set());
  const [problems, setProblems] = useState<Problems>(noProblems);
  const create = useCreateApiKey({
    onSuccess: (created) => onCreated(created.key, created.name),
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    create.mutate({ body: { name: name.trim(), kind, deploymentIds: scope === 'all' ? null : [...chosen] } });
  };
  const toggle = (id: number, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  return (
    <Dialog
      title="Create API key"
      onClose={onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create'}
          </button>
        </>
      )}
    >
      <Field label="Name" value={name} onChange={setName} problem={problems.fields.name} autoFocus />
      <SelectField
        label="Kind"
        value={kind}
        options={kindOptions}
        onChange={setKind}
        problem={problems.fields.kind}
      />
      <SelectField
        label="Deployments"
        value={scope}
        options={[
          { value: 'all', label: 'Every deployment' },
          { value: 'some', label: 'Only the deployments chosen below' },
        ]}
        onChange={setScope}
        problem={problems.fields.deploymentIds}
      />
      {scope === 'some' && (
        <fieldset className="checkbox-group">
          <legend>Deployments this key may act on</legend>
          {deployments.map((d) => (
            <label key={d.id}>
              <input
                type="checkbox"
                checked={chosen.has(d.id)}
                onChange={(e) => toggle(d.id, e.target.checked)}
              />{' '}
              {d.name}
            </label>
          ))}
        </fieldset>
      )}
      {problems.other && (
        <p className="form-error" role="alert">
          The key could not be created: {problems.other}
        </p>
      )}
    </Dialog>
  );
}

/** The new key, once: only its hash is kept, so it cannot be shown again. */
function ShowKeyDialog({ name, secret, onClose }: { name: string; secret: string; onClose: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  return (
    <Dialog
      title={`Your new key ${name}`}
      description="Copy it now: it is shown only this once. Send it as Authorization: Bearer <key>."
      onClose={onClose}
      buttons={(close) => (
        <>
          <button
            type="button"
            className="button button-secondary"
            onClick={() =>
              navigator.clipboard?.writeText(secret).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
          <button type="button" className="button button-primary" onClick={close}>
            Done
          </button>
        </>
      )}
    >
      <div className="field">
        <label htmlFor={id}>API key</label>
        <input id={id} readOnly value={secret} className="secret-value" onFocus={(e) => e.target.select()} />
      </div>
    </Dialog>
  );
}

function RevokeDialog({
  apiKey,
  onDone,
  onClose,
}: {
  apiKey: ApiKey;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const revoke = useRevokeApiKey({
    onSuccess: () => onDone(`Revoked the key ${apiKey.name}: it no longer works.`),
    onError: (error) => setProblem(problemsOf(error).other ?? 'The server refused it.'),
  });
  return (
    <ConfirmDialog
      title={`Revoke ${apiKey.name}?`}
      description="Whatever uses it is refused from its next request on. This cannot be undone."
      action="Revoke"
      pendingAction="Revoking…"
      pending={revoke.isPending}
      onConfirm={() => revoke.mutate({ params: { path: { apiKeyId: apiKey.id } } })}
      problem={problem}
      onClose={onClose}
    />
  );
}
