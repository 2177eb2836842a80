import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { listen } from '../data/test-support.ts';
import { embedApi, embedToken } from '../embed/test-support.ts';
import { chatClient, demoAgentId, type Line, messageId } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * Spec 4.3 `settings.showDashboardChat`: an embed token whose session allows chat streams turns
 * with its own deployment's agents as its own embed user, under the security context of its
 * session (the demo orders policy keeps `userAttributes.country`'s rows).
 */
describe('chat with an embed token', () => {
  let server: TestServer;
  let baseUrl: string;
  let agentId: number;
  let otherAgentId: number;

  const token = (body: Record<string, unknown>) =>
    embedToken(server, {
      deploymentId: server.demoDeploymentId,
      userAttributeDefinitions: [{ name: 'country', displayName: 'Country' }],
      ...body,
    });

  /** A chat client sending `Authorization: Bearer <embed token>`. */
  function embedChat(embed: string, agent = agentId) {
    const url = (path: string) => `${baseUrl}/api/v1/public/default/agents/${agent}/chat/${path}`;
    const headers = { authorization: `Bearer ${embed}`, 'content-type': 'application/json' };
    return {
      async turn(body: object) {
        const res = await fetch(url('stream-chat-state'), {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
        });
        const text = await res.text();
        const lines = res.ok
          ? text
              .split('\n')
              .filter((l) => l.trim() !== '')
              .map((l) => JSON.parse(l) as Line)
          : [];
        return { status: res.status, lines, body: text };
      },
      abort: (body: object) => fetch(url('abort'), { method: 'POST', headers, body: JSON.stringify(body) }),
      agent: () => fetch(`${baseUrl}/api/v1/embed/chat-agent`, { headers }),
    };
  }

  const sqlRows = (lines: Line[]) =>
    JSON.parse(
      lines.filter((l) => l.toolCall?.result && l.toolCall.name === 'serviceSqlApi').at(-1)?.toolCall.result,
    ).data as unknown[][];

  beforeAll(async () => {
    server = await startTestServer();
    baseUrl = await listen(server);
    agentId = await demoAgentId(server);
    const admin = { headers: { ...bearer(server.adminKey), 'content-type': 'application/json' } };
    const other = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      ...admin,
      payload: { name: 'embed chat other' },
    });
    expect(other.statusCode).toBe(200);
    const agent = await server.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      ...admin,
      payload: { deploymentId: other.json().id, name: 'Other' },
    });
    expect(agent.statusCode, agent.body).toBe(200);
    otherAgentId = agent.json().id;
  });
  afterAll(() => server?.close());

  it('streams a turn under the embed user’s row-level policy, never another country’s rows', async () => {
    const question = 'Total revenue by country';
    const admin = await chatClient(baseUrl, server.adminKey, agentId).turn({
      input: question,
      sessionSettings: { externalId: 'every-country' },
    });
    expect(admin.status).toBe(200);
    const all = sqlRows(admin.lines);
    const byCountry = new Map(all.map((r) => [r.find((v) => v === 'DE' || v === 'US'), r]));
    expect(byCountry.get('DE')).toBeDefined();
    expect(byCountry.get('US')).toBeDefined();

    for (const country of ['DE', 'US']) {
      const embed = await token({
        externalId: `viewer-${country.toLowerCase()}`,
        userAttributes: [{ name: 'country', value: country }],
        settings: { showDashboardChat: true },
      });
      const client = embedChat(embed);
      const found = await client.agent();
      expect(found.status).toBe(200);
      expect(await found.json()).toEqual({ accountName: 'default', agentId });
      const res = await client.turn({ input: question, messageId: messageId() });
      expect(res.status).toBe(200);
      expect(res.lines.at(-1)?.id).toBe('__usage__');
      for (const line of res.lines) expect(line.error).toBeUndefined();
      // one row: this country's, with the figure the unrestricted session sees for it
      expect(sqlRows(res.lines)).toEqual([byCountry.get(country)]);
      const final = res.lines.filter((l) => l.graphPath?.[0] === 'final').at(-1);
      expect(typeof final?.content).toBe('string');

      // the thread is the embed user's: a second turn continues it, and abort reaches it
      const chatId = res.lines[0].state.chatId;
      const again = await client.turn({ chatId });
      expect(again.status).toBe(200);
      expect((await client.abort({ chatId })).status).toBe(204);
    }
  });

  it('refuses a session whose settings do not allow chat (false, or omitted while the account’s is off)', async () => {
    const off = embedChat(await token({ externalId: 'no-chat', settings: { showDashboardChat: false } }));
    const refused = await off.turn({ input: 'Total revenue', messageId: messageId() });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('embed_chat_not_allowed');
    expect((await off.abort({ chatId: 'x' })).status).toBe(403);
    expect((await off.agent()).status).toBe(403);

    const api = embedApi(server);
    expect((await api.send('PUT', '/api/v1/embed/settings', { showDashboardChat: false })).status).toBe(200);
    try {
      const inherited = embedChat(await token({ externalId: 'inherits' }));
      expect((await inherited.turn({ input: 'Total revenue', messageId: messageId() })).status).toBe(403);
      expect((await inherited.agent()).status).toBe(403);
      // the session's own true wins over the account's off
      const forced = embedChat(await token({ externalId: 'forced', settings: { showDashboardChat: true } }));
      expect((await forced.agent()).status).toBe(200);
    } finally {
      await api.send('PUT', '/api/v1/embed/settings', { showDashboardChat: true });
    }
    // omitted while the account's setting is on: allowed
    const inheritsOn = embedChat(await token({ externalId: 'inherits-on' }));
    expect((await inheritsOn.agent()).status).toBe(200);
    // the route is the embed token's alone: none is 401, an API key 403
    expect((await fetch(`${baseUrl}/api/v1/embed/chat-agent`)).status).toBe(401);
    const withKey = await fetch(`${baseUrl}/api/v1/embed/chat-agent`, { headers: bearer(server.adminKey) });
    expect(withKey.status).toBe(403);
  });

  it('reaches only the agents of the token’s own deployment', async () => {
    const client = embedChat(
      await token({ externalId: 'roamer', settings: { showDashboardChat: true } }),
      otherAgentId,
    );
    const res = await client.turn({ input: 'Total revenue', messageId: messageId() });
    expect(res.status).toBe(403);
    expect(res.body).toContain('deployment_out_of_scope');
    expect((await client.abort({ chatId: 'x' })).status).toBe(403);
  });

  it('refuses sessionSettings in the body of an embed token, naming the field, and writes nothing', async () => {
    const embed = await token({
      externalId: 'spoofer',
      userAttributes: [{ name: 'country', value: 'DE' }],
      settings: { showDashboardChat: true },
    });
    const client = embedChat(embed);
    const res = await client.turn({
      input: 'Total revenue by country',
      sessionSettings: { externalId: 'someone-else' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('body/sessionSettings');
    const abort = await client.abort({ chatId: 'x', sessionSettings: { externalId: 'someone-else' } });
    expect(abort.status).toBe(400);
    expect(await abort.text()).toContain('body/sessionSettings');
  });

  it('still requires sessionSettings with an API key', async () => {
    const res = await chatClient(baseUrl, server.adminKey, agentId).turn({ input: 'Total revenue' });
    expect(res.status).toBe(400);
    expect(res.body).toContain('body/sessionSettings');
  });
});
