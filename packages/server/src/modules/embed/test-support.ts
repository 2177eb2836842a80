import { bearer, type TestServer } from '../../../test/harness.ts';
import { contentClient } from '../workspace/test-client.ts';

/** Shared by the embed tests, the route samples and the authorization matrix. */

async function send(
  server: TestServer,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = bearer(server.adminKey),
) {
  const res = await server.app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.body === '' ? null : res.json() };
}

export const embedApi = (server: TestServer, key = server.adminKey, host?: string) => {
  const headers = { ...bearer(key), ...(host ? { host } : {}) };
  return {
    send: (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
      send(server, method, url, payload, headers),
    generate: (body: Record<string, unknown>) =>
      send(server, 'POST', '/api/v1/embed/generate-session', body, headers),
    redeem: (sessionId: string) =>
      send(server, 'POST', '/api/v1/embed/session/token', { sessionId }, host ? { host } : {}),
    revoke: (sessionId: string) =>
      send(server, 'POST', '/api/v1/embed/session/revoke', { sessionId }, headers),
  };
};

/** A session for `body` redeemed into an embed token; throws when either step fails. */
export async function embedToken(server: TestServer, body: Record<string, unknown>, key = server.adminKey) {
  const api = embedApi(server, key);
  const session = await api.generate(body);
  if (session.status !== 200)
    throw new Error(`generate-session: ${session.status} ${JSON.stringify(session.body)}`);
  const token = await api.redeem(session.body.sessionId);
  if (token.status !== 200) throw new Error(`token: ${token.status} ${JSON.stringify(token.body)}`);
  return token.body.token as string;
}

/** A published dashboard on `deploymentId` with one SQL widget, optionally allowing embedding. */
export async function publishSimpleBoard(server: TestServer, deploymentId: number, allowEmbed: boolean) {
  const api = contentClient(server, deploymentId);
  const wb = await api.workbook(`Embed ${Math.random().toString(36).slice(2, 8)}`);
  const report = await api.report({ name: 'one', sqlQuery: 'SELECT 1', workbookId: wb.id });
  const board = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
    workbookId: wb.id,
    allowEmbed,
    config: {
      widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: report.id } }],
    },
  });
  return { workbookId: wb.id as number, publicId: board.publicId as string };
}

/** The payload of a JWT, unverified: what the embedding page reads from its token. */
export function claimsOf(token: string) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}
