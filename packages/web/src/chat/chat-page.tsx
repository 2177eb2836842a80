import { useParams, useSearchParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { PageHeader } from '../layout/page.tsx';
import { ErrorState } from '../layout/states.tsx';
import { useSession } from '../session/session.tsx';
import { ChatPanel } from './chat-panel.tsx';

/**
 * `/chat/:deploymentId`: the chat panel on a page of its own, as the signed-in user (their own
 * permissions apply: spec 4.6 `sessionSettings.internalId`), with the deployment's first agent
 * or the one `?agent=<id>` names. A route module: react-router's
 * `lazy` loads it, so the chat and its charting code load only when it is opened.
 */
export function ChatPage() {
  const deploymentId = idParam(useParams().deploymentId);
  const [search] = useSearchParams();
  const agentId = idParam(search.get('agent') ?? undefined) ?? undefined;
  const { client, user } = useSession();
  if (deploymentId === null)
    return <ErrorState title="Not found" message="This address does not name a deployment." />;
  return (
    <div className="tsr-chat-page">
      <PageHeader title="Ask your data" subtitle="Questions in plain words, answered from this deployment." />
      <ChatPanel
        key={`${deploymentId} ${agentId}`}
        client={client}
        deploymentId={deploymentId}
        agentId={agentId}
        sessionSettings={user ? { internalId: user.email } : undefined}
      />
    </div>
  );
}

/** For react-router's route `lazy`. */
export { ChatPage as Component };
