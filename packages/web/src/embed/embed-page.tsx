import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { Client } from '@tessera/client';
import { ClientProvider, useGetEmbedChatAgent, useGetEmbedDashboard } from '@tessera/client/react';
import { lazy, type ReactNode, type RefObject, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { CreatorActions } from './creator-actions.tsx';
import {
  captureEmbedLocation,
  dashboardIdOf,
  dashboardPath,
  type EmbedCredential,
  type EmbedFailure,
  embedClient,
  failureOf,
  messageFor,
  redeemSession,
} from './session.ts';
import { TeamDashboards } from './team-dashboards.tsx';
import { embedDashboardTheme, embedThemeStyle } from './theme.ts';
import './embed.css';

/**
 * The dashboard's code (the grid, Vega) is most of the page's weight: its download starts as this
 * module runs, so that it overlaps the session's redemption and the dashboard's read instead of
 * holding them back.
 */
const dashboardView = import('../dashboard/dashboard-view.tsx');
const DashboardView = lazy(() => dashboardView.then((m) => ({ default: m.DashboardView })));
/** The chat panel loads only for sessions that allow dashboard chat. */
const ChatPanel = lazy(() => import('../chat/chat-panel.tsx').then((m) => ({ default: m.ChatPanel })));

/**
 * The embed page, `/embed/dashboard/{publicId}?session=...` (spec 4.3; DESIGN.md "Web app and
 * sessions"): takes the session out of the address, redeems it once for an embed token kept in
 * memory, reads the dashboard with that token and draws it with the session's embed theme. Every
 * widget is queried with the token, so the server applies the embedded user's security context.
 * When the token ends (expired, revoked, embedding turned off) the page says so and stops.
 */
type Phase =
  | { kind: 'redeeming' }
  | { kind: 'ready'; credential: EmbedCredential; client: Client }
  | { kind: 'failed'; failure: { code: string; message: string } }
  | { kind: 'ended'; failure: { code: string; message: string } };

export function EmbedPage() {
  const [{ publicId: firstPublicId, sessionId }] = useState(captureEmbedLocation);
  // A creator opens other dashboards of its team in this page, with the same token (issue 12).
  // Each opening is a history entry of this document, so that Back and Forward move between the
  // dashboards without a reload: a reload would need the session again, which was redeemed once.
  const [publicId, setPublicId] = useState(firstPublicId);
  const open = (next: string) => {
    if (next === dashboardIdOf(window.location.pathname)) return;
    window.history.pushState(window.history.state, '', dashboardPath(next));
    setPublicId(next);
  };
  useEffect(() => {
    const follow = () => {
      const shown = dashboardIdOf(window.location.pathname);
      if (shown !== null) setPublicId(shown);
    };
    window.addEventListener('popstate', follow);
    return () => window.removeEventListener('popstate', follow);
  }, []);
  const [phase, setPhase] = useState<Phase>(() =>
    publicId === null
      ? failed('missing_dashboard')
      : sessionId === null
        ? failed('missing_session')
        : { kind: 'redeeming' },
  );

  // Drops the token from the client: once the view has ended, nothing is sent with it again.
  const forget = useRef(() => {});
  const end = (failure: { code: string; message: string }) => {
    forget.current();
    setPhase({ kind: 'ended', failure: { code: failure.code, message: failure.message } });
  };
  const endRef = useRef(end);
  endRef.current = end;

  useEffect(() => {
    if (sessionId === null || firstPublicId === null) return;
    let live = true;
    redeemSession(sessionId).then(
      (credential) => {
        if (!live) return;
        const made = embedClient(credential, (failure: EmbedFailure) => endRef.current(failure));
        forget.current = made.forget;
        setPhase({ kind: 'ready', credential, client: made.client });
      },
      (error: unknown) => {
        if (!live) return;
        const failure = error as Partial<EmbedFailure>;
        setPhase(
          typeof failure.code === 'string'
            ? { kind: 'failed', failure: { code: failure.code, message: failure.message ?? '' } }
            : failed('network'),
        );
      },
    );
    return () => {
      live = false;
      forget.current();
    };
  }, [sessionId, firstPublicId]);

  // Nothing renews the token: at the end of its life the page stops and says so.
  const expiresAt = phase.kind === 'ready' ? phase.credential.expiresAt : null;
  useEffect(() => {
    if (expiresAt === null) return;
    const timer = setTimeout(
      () => endRef.current({ code: 'credential_expired', message: messageFor('credential_expired') }),
      Math.max(0, expiresAt - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [expiresAt]);

  const root = useRef<HTMLDivElement>(null);
  useReportHeight(root);

  const theme = phase.kind === 'ready' ? phase.credential.claims.theme : null;
  return (
    <div ref={root} className="embed-root" data-embed-state={phase.kind} style={embedThemeStyle(theme)}>
      {phase.kind === 'redeeming' && <p className="embed-status">Opening the dashboard…</p>}
      {(phase.kind === 'failed' || phase.kind === 'ended') && (
        <Notice
          title={phase.kind === 'ended' ? 'This view has ended' : 'Cannot open this dashboard'}
          {...phase.failure}
        />
      )}
      {phase.kind === 'ready' && publicId !== null && (
        <EmbeddedDashboard
          client={phase.client}
          credential={phase.credential}
          publicId={publicId}
          onOpen={open}
        />
      )}
    </div>
  );
}

function failed(code: string): Phase {
  return { kind: 'failed', failure: { code, message: messageFor(code) } };
}

function EmbeddedDashboard(props: {
  client: Client;
  credential: EmbedCredential;
  publicId: string;
  onOpen: (publicId: string) => void;
}) {
  // A cache of its own: nothing read with the embed token mixes with the signed-in app's cache.
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <ClientProvider client={props.client}>
        <DashboardLoader {...props} />
      </ClientProvider>
    </QueryClientProvider>
  );
}

function DashboardLoader({
  client,
  credential,
  publicId,
  onOpen,
}: {
  client: Client;
  credential: EmbedCredential;
  publicId: string;
  onOpen: (publicId: string) => void;
}) {
  const query = useGetEmbedDashboard({ params: { path: { publicId } } });
  const theme = useMemo(() => embedDashboardTheme(credential.claims.theme), [credential.claims.theme]);
  const dashboard = query.data;
  const { creatorMode, embedTenantName, publicDashboardId, deploymentId } = credential.claims;
  // Creator mode (issue 12): only a session the host opened in creator mode, for a named embed
  // tenant, gets the creator's controls; every other session sees the dashboard alone.
  const creator = creatorMode === true && typeof embedTenantName === 'string' && embedTenantName !== '';
  // A session pinned to one dashboard (publicDashboardId) reads no other: nothing to open there.
  const openOther = publicDashboardId === null ? onOpen : null;
  // What the creator's last action did, said in the page's status (which outlives the dashboard)
  // while the dashboard it is about is shown: Back or another dashboard clears it.
  const [announcement, setAnnouncement] = useState<{ text: string; publicId: string } | null>(null);
  const announce = (text: string, about?: string) => setAnnouncement({ text, publicId: about ?? publicId });
  let main: ReactNode;
  if (query.error) {
    const failure = failureOf(query.error.status, query.error.body);
    main = <Notice title="Cannot open this dashboard" code={failure.code} message={failure.message} />;
  } else if (!dashboard) {
    main = <p className="embed-status">Loading the dashboard…</p>;
  } else {
    // The controls' state stays out of the address: the embed page's URL is the host's to give.
    main = (
      <>
        <Suspense fallback={<p className="embed-status">Loading the dashboard…</p>}>
          <DashboardView
            key={dashboard.publicId}
            dashboard={dashboard}
            client={client}
            deploymentId={dashboard.deploymentId}
            theme={theme}
            syncUrl={false}
            className="embed-dashboard"
            header={
              creator ? (
                <CreatorActions
                  key={dashboard.publicId}
                  deploymentId={dashboard.deploymentId}
                  workbookId={dashboard.workbookId}
                  publicId={dashboard.publicId}
                  embedTenantName={embedTenantName}
                  embedUserId={credential.claims.embedUserId}
                  onOpen={openOther}
                  onAnnounce={announce}
                />
              ) : undefined
            }
          />
        </Suspense>
        {credential.claims.settings?.showDashboardChat === true && (
          <EmbeddedChat client={client} deploymentId={dashboard.deploymentId} />
        )}
      </>
    );
  }
  if (!creator) return <>{main}</>;
  return (
    <div className="embed-creator-layout">
      {openOther && (
        <TeamDashboards deploymentId={deploymentId} currentPublicId={publicId} onOpen={openOther} />
      )}
      <div className="embed-creator-main">
        {/* A live region present from the start, so that assistive technology announces each action. */}
        <p className="embed-creator-status embed-creator-saved" role="status">
          {announcement?.publicId === publicId ? announcement.text : null}
        </p>
        {main}
      </div>
    </div>
  );
}

/**
 * Spec 4.3 `settings.showDashboardChat`: below the dashboard, a chat with the deployment's agent
 * as the embedded user (the token carries who they are; the server applies their row policies).
 */
function EmbeddedChat({ client, deploymentId }: { client: Client; deploymentId: number }) {
  const agent = useGetEmbedChatAgent({});
  if (!agent.data) return null;
  return (
    <Suspense fallback={<p className="embed-status">Starting the chat…</p>}>
      <div className="embed-chat">
        <ChatPanel client={client} deploymentId={deploymentId} embedAgent={agent.data} />
      </div>
    </Suspense>
  );
}

function Notice({ title, code, message }: { title: string; code: string; message: string }) {
  return (
    <section className="embed-notice" role="alert" data-code={code}>
      <h1>{title}</h1>
      <p>{message}</p>
    </section>
  );
}

/**
 * Tells the framing page how tall the content is (`{ type: 'tessera:embed', height }`), so that it
 * can size the iframe; the height says nothing about the data, so any parent may hear it.
 */
function useReportHeight(root: RefObject<HTMLDivElement | null>) {
  const last = useRef(0);
  useEffect(() => {
    const element = root.current;
    if (window.parent === window || !element) return;
    const report = () => {
      // The content's own height, not the document's (which is never less than the frame's).
      const height = Math.ceil(element.getBoundingClientRect().height);
      if (height === last.current) return;
      last.current = height;
      window.parent.postMessage({ type: 'tessera:embed', height }, '*');
    };
    const observer = new ResizeObserver(report);
    observer.observe(element);
    report();
    return () => observer.disconnect();
  }, [root]);
}
