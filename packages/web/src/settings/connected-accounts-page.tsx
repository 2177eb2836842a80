import {
  useInitiateOAuthFlow,
  useListOAuthIntegrations,
  useListUserOAuthTokens,
  useRevokeUserOAuthToken,
} from '@tessera/client/react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { describeError } from '../api/errors.ts';
import { DateText, PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';

const statusWords = {
  active: 'Connected',
  expired: 'Expired: connect again',
  error: 'Needs attention',
} as const;

/** Words for the reason the OAuth callback sends back (`?error=`). */
function callbackProblem(reason: string): string {
  if (reason === 'access_denied') return 'The provider did not grant access.';
  if (reason === 'unknown_or_expired_state')
    return 'The connection took too long or was already used. Try again.';
  return `The connection failed (${reason}). Try again, or ask an administrator.`;
}

/**
 * `/settings/connected-accounts` (issue 22 item 8): the signed-in user's OAuth connections. Connect
 * starts the authorization-code flow (`POST .../initiate`) and sends the browser to the provider,
 * which returns it here; Disconnect revokes the token (spec 4.1).
 */
export function ConnectedAccountsPage() {
  const integrations = useListOAuthIntegrations();
  const tokens = useListUserOAuthTokens();
  const [params, setParams] = useSearchParams();
  const [revoking, setRevoking] = useState<{ id: number; name: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const initiate = useInitiateOAuthFlow({
    onSuccess: (answer) => window.location.assign(answer.authorizationUrl),
    onError: (error) => setProblem(`The connection could not start: ${describeError(error)}`),
  });

  const connected = params.get('connected');
  const failed = params.get('error');
  const connectedName = integrations.data?.find((i) => String(i.id) === connected)?.name;
  const byIntegration = new Map((tokens.data ?? []).map((t) => [t.integrationId, t]));

  return (
    <>
      <PageHeader
        title="Connected accounts"
        subtitle="Accounts at other services that Tessera uses on your behalf."
      />
      {(connected || failed) && (
        <div className={failed ? 'form-error' : 'notice'} role={failed ? 'alert' : 'status'}>
          {failed ? callbackProblem(failed) : `Connected${connectedName ? ` to ${connectedName}` : ''}.`}{' '}
          <button
            type="button"
            className="button button-ghost"
            onClick={() => setParams({}, { replace: true })}
          >
            Dismiss
          </button>
        </div>
      )}
      {message && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {integrations.isPending || tokens.isPending ? (
        <LoadingState />
      ) : integrations.isError || tokens.isError ? (
        <ErrorState
          error={integrations.error ?? tokens.error}
          onRetry={() => {
            integrations.refetch();
            tokens.refetch();
          }}
        />
      ) : integrations.data.length === 0 ? (
        <EmptyState title="No services to connect yet." />
      ) : (
        <ul className="settings-list" aria-label="Services">
          {integrations.data.map((integration) => {
            const token = byIntegration.get(integration.id);
            return (
              <li key={integration.id} className="settings-row">
                <div className="settings-row-text">
                  <h2>{integration.name}</h2>
                  <p className="muted">
                    {token ? (
                      <>
                        {statusWords[token.status]}
                        {token.lastError ? `: ${token.lastError}` : ''} · since{' '}
                        <DateText value={token.createdAt} />
                      </>
                    ) : (
                      'Not connected'
                    )}
                  </p>
                </div>
                <div className="settings-row-actions">
                  {token?.status !== 'active' && (
                    <button
                      type="button"
                      className="button button-primary"
                      disabled={initiate.isPending}
                      onClick={() => {
                        setProblem(null);
                        initiate.mutate({ params: { path: { integrationId: integration.id } } });
                      }}
                    >
                      {token ? 'Reconnect' : 'Connect'}
                      <span className="visually-hidden"> {integration.name}</span>
                    </button>
                  )}
                  {token && (
                    <button
                      type="button"
                      className="button button-secondary"
                      onClick={() => setRevoking({ id: integration.id, name: integration.name })}
                    >
                      Disconnect<span className="visually-hidden"> {integration.name}</span>
                    </button>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {revoking && (
        <RevokeDialog
          integration={revoking}
          onDone={(text) => {
            setRevoking(null);
            setMessage(text);
          }}
          onClose={() => setRevoking(null)}
        />
      )}
    </>
  );
}

function RevokeDialog(props: {
  integration: { id: number; name: string };
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const revoke = useRevokeUserOAuthToken({
    onSuccess: (answer) =>
      props.onDone(
        answer.providerRevoked
          ? `Disconnected from ${props.integration.name}; the provider revoked the token.`
          : `Disconnected from ${props.integration.name}.`,
      ),
    onError: (error) => setProblem(describeError(error)),
  });
  return (
    <ConfirmDialog
      title={`Disconnect ${props.integration.name}?`}
      description="Tessera forgets your token and asks the provider to revoke it. Data that uses your account there stops working until you connect again."
      action="Disconnect"
      pendingAction="Disconnecting…"
      pending={revoke.isPending}
      onConfirm={() => revoke.mutate({ params: { path: { integrationId: props.integration.id } } })}
      problem={problem}
      onClose={props.onClose}
    />
  );
}
