import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../../test/harness.ts';

describe('chat agents (/api/v1/agents)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, key?: string) =>
    server.app.inject({ method, url, headers: bearer(key ?? server.adminKey), payload });

  it('seeds a demo agent on the demo deployment with its chat URL', async () => {
    const res = await call('GET', '/api/v1/agents');
    expect(res.statusCode).toBe(200);
    const demo = res
      .json()
      .items.find((a: { deploymentId: number }) => a.deploymentId === server.demoDeploymentId);
    expect(demo.brain).toEqual({ kind: 'builtin' });
    expect(demo.chatApiUrl).toMatch(new RegExp(`/api/v1/public/default/agents/${demo.id}$`));
  });

  it("names the problem of the brain the body chose, not another brain's unknown fields", async () => {
    const res = await call('POST', '/api/v1/agents', {
      name: 'Analyst',
      deploymentId: server.demoDeploymentId,
      brain: { kind: 'openai', baseURL: 'ftp://models.example.com', model: 'm' },
    });
    expect(res.statusCode).toBe(400);
    const errors = res.json().errors as { field: string; message: string }[];
    expect(errors.find((e) => e.field === 'body/brain/baseURL')?.message).toMatch(/pattern/);
    expect(errors.map((e) => e.message)).not.toContain('is not a known field');
  });

  it('creates, pages, reads, updates and deletes; an OpenAI key is never returned', async () => {
    const created = await call('POST', '/api/v1/agents', {
      name: 'Analyst',
      deploymentId: server.demoDeploymentId,
      brain: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-secret-value' },
    });
    expect(created.statusCode).toBe(200);
    expect(created.body).not.toContain('sk-secret-value');
    const agent = created.json();
    expect(agent.brain).toEqual({
      kind: 'openai',
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'm',
      hasApiKey: true,
    });
    const stored = await server.store.db
      .selectFrom('agents')
      .select('api_key_enc')
      .where('id', '=', agent.id)
      .executeTakeFirstOrThrow();
    expect(stored.api_key_enc).not.toContain('sk-secret-value');

    const first = (await call('GET', '/api/v1/agents?first=1')).json();
    expect(first.items).toHaveLength(1);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const next = (await call('GET', `/api/v1/agents?first=1&after=${first.pageInfo.endCursor}`)).json();
    expect(next.items[0].id).toBe(agent.id);

    const updated = await call('PATCH', `/api/v1/agents/${agent.id}`, {
      name: 'Renamed',
      brain: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm2' },
    });
    expect(updated.json()).toMatchObject({ name: 'Renamed', brain: { model: 'm2', hasApiKey: true } });
    expect((await call('GET', `/api/v1/agents/${agent.id}`)).json().name).toBe('Renamed');
    expect((await call('DELETE', `/api/v1/agents/${agent.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/agents/${agent.id}`)).json().code).toBe('agent_not_found');
  });

  it('refuses writes below developer, an unknown deployment, and everything when chat is off', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const res = await call(
      'POST',
      '/api/v1/agents',
      { name: 'x', deploymentId: server.demoDeploymentId },
      viewer.key,
    );
    expect(res.statusCode).toBe(403);
    const missing = await call('POST', '/api/v1/agents', { name: 'x', deploymentId: 999999 });
    expect(missing.statusCode).toBe(404);
    await server.store.db
      .updateTable('tenants')
      .set({ chat_enabled: false })
      .where('id', '=', server.tenantId)
      .execute();
    try {
      const off = await call('GET', '/api/v1/agents');
      expect(off.statusCode).toBe(403);
      expect(off.json().code).toBe('chat_disabled');
    } finally {
      await server.store.db
        .updateTable('tenants')
        .set({ chat_enabled: true })
        .where('id', '=', server.tenantId)
        .execute();
    }
  });
});
