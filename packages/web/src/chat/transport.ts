import type { ChatSessionSettings, Client } from '@tessera/client';

const STREAM_PATH = '/api/v1/public/{accountName}/agents/{agentId}/chat/stream-chat-state';
const ABORT_PATH = '/api/v1/public/{accountName}/agents/{agentId}/chat/abort';

/** An agent as the panel talks to it: the account and id its chat URL carries (DESIGN.md "Addresses"). */
export interface ChatAgent {
  id: number;
  name: string;
  accountName: string;
}

/** The account name in an agent's `chatApiUrl` (`{server}/api/v1/public/{account}/agents/{id}`). */
export function accountOf(chatApiUrl: string): string | null {
  const match = /\/api\/v1\/public\/([^/]+)\/agents\/\d+\/?$/.exec(new URL(chatApiUrl, 'http://x').pathname);
  return match ? decodeURIComponent(match[1]) : null;
}

/**
 * The `fetch` that `streamChat` sends its requests through: the app's own client, so that the
 * stream goes where every other call goes, with the same credentials (the session cookie and its
 * CSRF header, or a token), never to another origin. The `Authorization` header streamChat sets
 * from its `apiKey` is not used: the client's own credential is. The body comes back as a stream.
 */
export function throughClient(client: Client, agent: ChatAgent): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = (await request.json()) as Record<string, unknown>;
    const { data, error, response } = await client.POST(STREAM_PATH, {
      params: { path: { accountName: agent.accountName, agentId: agent.id } },
      body: body as never,
      parseAs: 'stream',
      signal: request.signal,
    });
    if (data) return response;
    // openapi-fetch read the error body already: hand streamChat an unread copy
    return new Response(JSON.stringify(error ?? {}), {
      status: response.status,
      headers: { 'content-type': 'application/json' },
    });
  };
}

/** The reference's abort: the run streaming on the thread stops and its stream ends with `__aborted__`. */
export async function abortTurn(
  client: Client,
  agent: ChatAgent,
  chatId: string,
  sessionSettings: ChatSessionSettings | null,
): Promise<boolean> {
  const { response } = await client.POST(ABORT_PATH, {
    params: { path: { accountName: agent.accountName, agentId: agent.id } },
    body: { chatId, ...(sessionSettings ? { sessionSettings } : {}) } as never,
  });
  return response.ok;
}
