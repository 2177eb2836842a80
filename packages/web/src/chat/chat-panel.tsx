import {
  type ChatSessionSettings,
  ChatStreamError,
  type Client,
  isApiError,
  streamChat,
} from '@tessera/client';
import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ChatChart } from './chat-chart.tsx';
import {
  applyMessage,
  boldRuns,
  type TextItem,
  type ToolItem,
  type Turn,
  toolLabel,
  toolOutcome,
  viewOf,
} from './conversation.ts';
import { abortTurn, accountOf, type ChatAgent, throughClient } from './transport.ts';
import './chat.css';

export interface ChatPanelProps {
  /** The app's client: the stream and every other call go through it, with its credentials. */
  client: Client;
  /** The deployment whose data the agent answers about. */
  deploymentId: number;
  /** The agent; by default the first agent of the deployment. */
  agentId?: number;
  /**
   * Who is chatting (spec 4.6 `sessionSettings`); by default the client's signed-in user, as
   * `internalId`, so that their own permissions apply.
   */
  sessionSettings?: ChatSessionSettings;
  /**
   * An embed token's agent (`GET /api/v1/embed/chat-agent`): the panel chats with it as the
   * token's own embed user, sending no `sessionSettings` (spec 4.3 `settings.showDashboardChat`).
   */
  embedAgent?: { accountName: string; agentId: number };
  /** Questions offered before the first one; defaults suit the demo data. */
  suggestions?: string[];
}

type Setup =
  | { status: 'loading' }
  | { status: 'ready'; agent: ChatAgent; session: ChatSessionSettings | null }
  | { status: 'unavailable'; message: string };

const DEFAULT_SUGGESTIONS = [
  'How many orders are there?',
  'Revenue by month in 2024',
  'Top 5 countries by revenue',
];

/** The agent and the session the panel chats as, or why it cannot. */
function useSetup(props: ChatPanelProps): Setup {
  const { client, deploymentId, agentId, embedAgent } = props;
  const [setup, setSetup] = useState<Setup>({ status: 'loading' });
  const embedKey = embedAgent ? `${embedAgent.accountName}/${embedAgent.agentId}` : null;
  // compared by value: a caller may pass a new object with the same settings on each render
  const settingsKey = JSON.stringify(props.sessionSettings ?? null);
  useEffect(() => {
    const sessionSettings = JSON.parse(settingsKey) as ChatSessionSettings | null;
    let cancelled = false;
    const settle = (next: Setup) => {
      if (!cancelled) setSetup(next);
    };
    setSetup({ status: 'loading' });
    if (embedKey !== null) {
      // the embed token names the user: no agent lookup, no session settings
      const slash = embedKey.lastIndexOf('/');
      const id = Number(embedKey.slice(slash + 1));
      settle({
        status: 'ready',
        agent: { id, name: 'Agent', accountName: embedKey.slice(0, slash) },
        session: null,
      });
      return () => {
        cancelled = true;
      };
    }
    (async () => {
      const agents =
        agentId !== undefined
          ? await client.GET('/api/v1/agents/{agentId}', { params: { path: { agentId } } }).then((r) => ({
              items: r.data ? [r.data] : [],
              error: r.error,
              response: r.response,
            }))
          : await client
              .GET('/api/v1/agents', { params: { query: { first: 100 } } })
              .then((r) => ({ items: r.data?.items ?? [], error: r.error, response: r.response }));
      if (!agents.response.ok) return settle({ status: 'unavailable', message: problemText(agents.error) });
      const found = agents.items.find((a) => a.deploymentId === deploymentId);
      const accountName = found && accountOf(found.chatApiUrl);
      if (!found || !accountName)
        return settle({
          status: 'unavailable',
          message: 'No chat agent answers about this deployment yet. An administrator can create one.',
        });
      let session = sessionSettings;
      if (!session) {
        const me = await client.GET('/api/v1/session');
        if (!me.data) return settle({ status: 'unavailable', message: 'Sign in to chat with the agent.' });
        session = { internalId: me.data.user.email };
      }
      settle({ status: 'ready', agent: { id: found.id, name: found.name, accountName }, session });
    })().catch((error: unknown) =>
      settle({ status: 'unavailable', message: `The chat could not start: ${describe(error)}` }),
    );
    return () => {
      cancelled = true;
    };
  }, [client, deploymentId, agentId, settingsKey, embedKey]);
  return setup;
}

function problemText(error: unknown): string {
  const detail = (error as { detail?: unknown; title?: unknown } | undefined)?.detail;
  return typeof detail === 'string' ? detail : 'The chat agents could not be read.';
}

function describe(error: unknown): string {
  if (error instanceof ChatStreamError || isApiError(error)) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The chat panel (spec 4.6; DESIGN.md "Web app and sessions"): asks the deployment's agent a
 * question and shows the turn as it streams: the question, the agent's reasoning and tool calls
 * (collapsed, each query with its SQL), the answer, and a chart for each query result that has
 * one. Later questions continue the thread. Stop ends a turn (the abort endpoint); a dropped
 * connection is resubscribed by `streamChat` with the same `messageId`. Errors are shown in the
 * conversation. Enter sends, Shift+Enter starts a new line, Escape stops.
 */
export function ChatPanel(props: ChatPanelProps) {
  const setup = useSetup(props);
  if (setup.status === 'loading')
    return (
      <section className="tsr-chat" aria-label="Chat" aria-busy="true">
        <p className="tsr-chat-status" role="status">
          <span className="spinner" aria-hidden="true" /> Starting the chat…
        </p>
      </section>
    );
  if (setup.status === 'unavailable')
    return (
      <section className="tsr-chat" aria-label="Chat">
        <p className="tsr-chat-error" role="alert">
          {setup.message}
        </p>
      </section>
    );
  return (
    <Conversation
      // another agent or session is another conversation
      key={`${setup.agent.id} ${JSON.stringify(setup.session)}`}
      client={props.client}
      agent={setup.agent}
      session={setup.session}
      suggestions={props.suggestions ?? DEFAULT_SUGGESTIONS}
    />
  );
}

function Conversation({
  client,
  agent,
  session,
  suggestions,
}: {
  client: Client;
  agent: ChatAgent;
  session: ChatSessionSettings | null;
  suggestions: string[];
}) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const [streaming, setStreaming] = useState(false);
  const [stopping, setStopping] = useState(false);
  const chatId = useRef<string | undefined>(undefined);
  const reading = useRef<AbortController | null>(null);
  const counter = useRef(0);
  const log = useRef<HTMLDivElement>(null);
  const field = useRef<HTMLTextAreaElement>(null);
  const inputId = useId();

  // leaving stops reading (the run goes on on the server)
  useEffect(() => () => reading.current?.abort(), []);

  // follow the conversation's end as it grows (a chart too, drawn after its turn ended),
  // unless the reader scrolled up
  const pinned = useRef(true);
  const follow = useCallback(() => {
    const element = log.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, []);
  useEffect(follow);

  const update = useCallback((key: string, change: (turn: Turn) => Turn) => {
    setTurns((all) => all.map((t) => (t.key === key ? change(t) : t)));
  }, []);

  const send = useCallback(
    async (question: string) => {
      const text = question.trim();
      if (!text || reading.current) return;
      const controller = new AbortController();
      reading.current = controller;
      const key = `turn-${++counter.current}`;
      setTurns((all) => [...all, { key, question: text, messages: [], status: 'streaming' }]);
      setInput('');
      setStreaming(true);
      pinned.current = true;
      try {
        const stream = streamChat({
          baseUrl: window.location.origin,
          accountName: agent.accountName,
          agentId: String(agent.id),
          apiKey: '',
          // without sessionSettings for an embed token, whose session names the user
          request: {
            input: text,
            chatId: chatId.current,
            ...(session ? { sessionSettings: session } : {}),
          } as Parameters<typeof streamChat>[0]['request'],
          signal: controller.signal,
          fetch: throughClient(client, agent),
        });
        for await (const message of stream) {
          if (message.id === '__cutoff__' && message.state?.chatId) chatId.current = message.state.chatId;
          update(key, (turn) => applyMessage(turn, message));
        }
        update(key, (turn) => (turn.status === 'streaming' ? { ...turn, status: 'done' } : turn));
      } catch (error) {
        if (controller.signal.aborted) update(key, (turn) => ({ ...turn, status: 'stopped' }));
        else update(key, (turn) => ({ ...turn, status: 'error', error: describe(error) }));
      } finally {
        reading.current = null;
        setStreaming(false);
        setStopping(false);
        field.current?.focus();
      }
    },
    [client, agent, session, update],
  );

  const stop = useCallback(async () => {
    if (!reading.current || stopping) return;
    setStopping(true);
    const thread = chatId.current;
    // the run stops on the server and its stream ends with __aborted__; failing that, stop reading
    const asked = thread ? await abortTurn(client, agent, thread, session).catch(() => false) : false;
    if (!asked) reading.current?.abort();
  }, [client, agent, session, stopping]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send(input);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send(input);
    } else if (event.key === 'Escape' && streaming) {
      event.preventDefault();
      void stop();
    }
  };

  return (
    <section className="tsr-chat" aria-label={`Chat with ${agent.name}`}>
      <header className="tsr-chat-header">
        <h2 className="tsr-chat-title">{agent.name}</h2>
        <button
          type="button"
          className="button button-ghost"
          disabled={streaming || turns.length === 0}
          onClick={() => {
            chatId.current = undefined;
            setTurns([]);
            field.current?.focus();
          }}
        >
          New chat
        </button>
      </header>
      <div
        ref={log}
        className="tsr-chat-log"
        role="log"
        aria-live="polite"
        aria-busy={streaming}
        aria-label="Conversation"
        onScroll={(event) => {
          const el = event.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        {turns.length === 0 ? (
          <div className="tsr-chat-empty">
            <p>Ask a question about the data of this deployment.</p>
            <ul className="tsr-chat-suggestions" aria-label="Suggested questions">
              {suggestions.map((s) => (
                <li key={s}>
                  <button type="button" className="tsr-chat-suggestion" onClick={() => void send(s)}>
                    {s}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ) : (
          turns.map((turn) => <TurnView key={turn.key} turn={turn} onChartDrawn={follow} />)
        )}
      </div>
      <form className="tsr-chat-form" onSubmit={submit}>
        <label className="visually-hidden" htmlFor={inputId}>
          Ask a question about your data
        </label>
        <textarea
          id={inputId}
          ref={field}
          className="tsr-chat-input"
          rows={2}
          placeholder="Ask a question about your data"
          value={input}
          maxLength={20_000}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {streaming ? (
          <button
            type="button"
            className="button button-secondary tsr-chat-stop"
            onClick={() => void stop()}
            disabled={stopping}
          >
            <span className="tsr-chat-stop-icon" aria-hidden="true" />
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : (
          <button type="submit" className="button button-primary" disabled={!input.trim()}>
            Send
          </button>
        )}
      </form>
    </section>
  );
}

function Text({ text }: { text: string }) {
  return (
    <>
      {boldRuns(text).map((run, i) =>
        run.bold ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: runs of one text, never reordered
          <strong key={i}>{run.text}</strong>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: runs of one text, never reordered
          <span key={i}>{run.text}</span>
        ),
      )}
    </>
  );
}

function TurnView({ turn, onChartDrawn }: { turn: Turn; onChartDrawn: () => void }) {
  const view = viewOf(turn);
  return (
    <article className="tsr-chat-turn" data-turn-status={turn.status}>
      <div className="tsr-chat-question">
        <span className="visually-hidden">You asked: </span>
        {turn.question}
      </div>
      <div className="tsr-chat-reply">
        {view.thinking && (
          <details className="tsr-chat-thinking">
            <summary>Reasoning</summary>
            <p>{view.thinking}</p>
          </details>
        )}
        {view.steps.map((step) =>
          step.kind === 'tool' ? (
            <ToolCallView key={step.key} item={step} />
          ) : (
            <p key={step.key} className="tsr-chat-narration">
              <Text text={step.text} />
            </p>
          ),
        )}
        {view.answer && <Answer item={view.answer} />}
        {view.charts.map((chart) => (
          <ChatChart key={chart.key} chart={chart} onDrawn={onChartDrawn} />
        ))}
        {turn.status === 'streaming' && !view.answer && (
          <p className="tsr-chat-status" role="status">
            <span className="spinner" aria-hidden="true" /> Working on it…
          </p>
        )}
        {turn.status === 'stopped' && <p className="tsr-chat-note">Stopped before the answer.</p>}
        {turn.status === 'error' && (
          <p className="tsr-chat-error" role="alert">
            {turn.error}
          </p>
        )}
      </div>
    </article>
  );
}

function Answer({ item }: { item: TextItem }) {
  return (
    <div className="tsr-chat-answer" data-streaming={item.streaming || undefined}>
      <span className="visually-hidden">The agent answered: </span>
      <span className="tsr-chat-answer-text">
        <Text text={item.text} />
      </span>
    </div>
  );
}

function ToolCallView({ item }: { item: ToolItem }) {
  const { call, running } = item;
  const outcome = toolOutcome(call);
  const input = (call.input ?? {}) as { sqlQuery?: string; searchQuery?: string };
  return (
    <details className="tsr-chat-tool" data-tool={call.name} data-running={running || undefined}>
      <summary>
        {running && <span className="spinner spinner-small" aria-hidden="true" />}
        <span className="tsr-chat-tool-label">{toolLabel(call, running)}</span>
        {outcome.error ? (
          <span className="tsr-chat-tool-failed">failed</span>
        ) : outcome.rows !== undefined ? (
          <span className="tsr-chat-tool-rows">
            {outcome.totalRows !== undefined && outcome.totalRows > outcome.rows
              ? `${outcome.rows} of ${outcome.totalRows} rows`
              : `${outcome.rows} ${outcome.rows === 1 ? 'row' : 'rows'}`}
          </span>
        ) : null}
      </summary>
      {input.sqlQuery && (
        <pre className="tsr-chat-sql">
          <code>{input.sqlQuery}</code>
        </pre>
      )}
      {call.name === 'serviceMeta' && input.searchQuery && (
        <p className="tsr-chat-tool-detail">Looked for: {input.searchQuery}</p>
      )}
      {outcome.error && <p className="tsr-chat-tool-error">{outcome.error}</p>}
    </details>
  );
}
