import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { notificationsApi, publishNotificationBoard } from '../notifications/test-support.ts';
import { auditEntries, wholeAuditLog } from './test-support.ts';

/**
 * Issue 22 item 5 for embed tenants, their groups and users, embed access shares, notifications
 * (and send-now), chat agents and dashboard exports: each change leaves an entry with before and
 * after, written in its transaction; an agent's key, an export's download handle and a render's
 * security context never reach the log.
 */
describe('audit log: embedding, notifications, agents and exports', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishNotificationBoard>>;
  beforeAll(async () => {
    server = await startTestServer();
    board = await publishNotificationBoard(server);
  });
  afterAll(() => server?.close());

  const entries = (query: string) => auditEntries(server, query);
  const send = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) => {
    const res = await server.app.inject({
      method,
      url,
      headers: bearer(server.adminKey),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.body ? res.json() : undefined;
  };

  it('records embed tenants, their groups, members, provisioned users and embed access shares', async () => {
    const tenant = await send('POST', '/api/v1/embed-tenants', { name: 'audited', displayName: 'Audited' });
    await send('POST', '/api/v1/embed-tenants', { name: 'audited', displayName: 'Audited Inc' });
    const group = await send('POST', '/api/v1/embed-tenants/audited/groups', { name: 'crew' });
    const groupUrl = `/api/v1/embed-tenants/audited/groups/${group.id}`;
    await send('PATCH', groupUrl, { description: 'the crew' });
    await send('POST', `${groupUrl}/users`, { members: [{ externalId: 'zoe' }] });
    await send('DELETE', `${groupUrl}/users`, { members: [{ externalId: 'zoe' }] });
    await send('DELETE', groupUrl);
    const user = await send('POST', '/api/v1/embed-tenants/audited/user', {
      externalId: 'quinn',
      email: 'quinn@example.com',
    });
    await send('POST', '/api/v1/embed-tenants/audited/user', { externalId: 'quinn', email: 'q@example.com' });
    const access = `/api/v1/deployments/${server.demoDeploymentId}/workbooks/${board.workbookId}/embed-access`;
    await send('PUT', access, { embedTenantName: 'audited', action: 'read', allowEmbed: true });
    await send('DELETE', '/api/v1/embed-tenants/audited');

    const tenantEntries = await entries(`targetType=embed_tenant&targetId=${tenant.id}`);
    expect(
      tenantEntries.map((e) => [e.action, e.before?.displayName ?? null, e.after?.displayName ?? null]),
    ).toEqual([
      ['embed_tenant.delete', 'Audited Inc', null],
      ['embed_tenant.update', 'Audited', 'Audited Inc'],
      ['embed_tenant.create', null, 'Audited'],
    ]);
    const groupEntries = await entries(`targetType=embed_group&targetId=${group.id}`);
    expect(groupEntries.map((e) => e.action)).toEqual([
      'embed_group.delete',
      'embed_group.remove_members',
      'embed_group.add_members',
      'embed_group.update',
      'embed_group.create',
    ]);
    expect(groupEntries[3]).toMatchObject({
      before: { embedTenant: 'audited', name: 'crew', description: null },
      after: { description: 'the crew' },
    });
    expect(groupEntries[2].after.added).toEqual(['zoe']);
    expect(groupEntries[1].before.removed).toEqual(['zoe']);
    const userEntries = await entries(`targetType=embed_user&targetId=${user.id}`);
    expect(userEntries.map((e) => [e.action, e.before?.email ?? null, e.after.email])).toEqual([
      ['embed_user.update', 'quinn@example.com', 'q@example.com'],
      ['embed_user.create', null, 'quinn@example.com'],
    ]);
    const [shared] = await entries(`action=embed_access.update&targetId=${board.workbookId}`);
    expect(shared.before).toMatchObject({ allowEmbed: false, tenants: [] });
    expect(shared.after).toMatchObject({
      allowEmbed: true,
      tenants: [{ embedTenantName: 'audited', action: 'read' }],
    });
  });

  it('records notifications created, changed, sent now and deleted, and agents', async () => {
    const api = notificationsApi(server);
    const created = await api.create({ scheduleType: 'DAILY', hour: 7, dashboardId: board.dashboardId });
    await api.ok('PUT', `/${created.id}`, { hour: 9, isEnabled: false });
    const run = (await api.ok('POST', `/${created.id}/runs`)).run;
    expect((await api.call('DELETE', `/${created.id}`)).status).toBe(204);
    const notified = await entries(`targetType=notification&targetId=${created.id}`);
    expect(notified.map((e) => e.action)).toEqual([
      'notification.delete',
      'notification.send_now',
      'notification.update',
      'notification.create',
    ]);
    const [removed, sent, updated, made] = notified;
    expect(made).toMatchObject({ before: null, after: { cronExpression: '0 7 * * *', isEnabled: true } });
    expect(updated.before).toMatchObject({ cronExpression: '0 7 * * *', isEnabled: true });
    expect(updated.after).toMatchObject({ cronExpression: '0 9 * * *', isEnabled: false });
    expect(sent.after).toMatchObject({ runId: run.id, fireTime: run.fireTime });
    expect(removed).toMatchObject({ before: { dashboardId: board.dashboardId }, after: null });

    const agent = await send('POST', '/api/v1/agents', {
      name: 'Audited agent',
      deploymentId: server.demoDeploymentId,
      brain: { kind: 'builtin' },
    });
    await send('PATCH', `/api/v1/agents/${agent.id}`, {
      brain: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-audit-1' },
    });
    await send('DELETE', `/api/v1/agents/${agent.id}`);
    const agentEntries = await entries(`targetType=agent&targetId=${agent.id}`);
    expect(agentEntries.map((e) => e.action)).toEqual(['agent.delete', 'agent.update', 'agent.create']);
    expect(agentEntries[1].before.brain).toEqual({ kind: 'builtin' });
    expect(agentEntries[1].after).toMatchObject({
      apiKeyReplaced: true,
      brain: { kind: 'openai', model: 'm', hasApiKey: true },
    });
  });

  it('records recipients added and removed, a webhook by its host only', async () => {
    const api = notificationsApi(server);
    const n = await api.create({ scheduleType: 'DAILY', hour: 6, dashboardId: board.dashboardId });
    const hookPath = '/services/T000/B000/webhook-path-never-logged';
    const webhookSecret = 'whsec_webhook_secret_never_logged';
    await api.addRecipients(n.id, [
      { type: 'EMAIL', email: 'boss@example.com' },
      { type: 'WEBHOOK', url: `https://hooks.example.com${hookPath}`, secret: webhookSecret },
    ]);
    // Already subscribed as asked: no entry.
    await api.addRecipients(n.id, [{ type: 'EMAIL', email: 'boss@example.com' }]);
    expect(
      (
        await api.call('DELETE', `/${n.id}/recipients`, {
          recipients: [{ type: 'EMAIL', id: 'boss@example.com' }],
        })
      ).status,
    ).toBe(204);
    const items = (await entries(`targetType=notification&targetId=${n.id}`)).filter((e) =>
      e.action.endsWith('_recipients'),
    );
    expect(items.map((e) => e.action)).toEqual([
      'notification.remove_recipients',
      'notification.add_recipients',
    ]);
    expect(items[1].after.recipients).toEqual([
      { type: 'EMAIL', userId: null, email: 'boss@example.com', change: 'added' },
      { type: 'WEBHOOK', host: 'hooks.example.com', change: 'added' },
    ]);
    expect(items[0]).toMatchObject({
      before: { recipients: [{ type: 'EMAIL', email: 'boss@example.com' }] },
      after: null,
    });
    const log = await wholeAuditLog(server);
    expect(log).not.toContain('webhook-path-never-logged');
    expect(log).not.toContain(webhookSecret);
  });

  it('records dashboard exports and keeps secrets out: agent keys, download handles, render contexts', async () => {
    const agentKey = 'sk-agent-key-never-logged';
    const agent = await send('POST', '/api/v1/agents', {
      name: 'Keyed',
      deploymentId: server.demoDeploymentId,
      brain: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm', apiKey: agentKey },
    });
    const otherKey = 'sk-second-key-never-logged';
    await send('PATCH', `/api/v1/agents/${agent.id}`, {
      brain: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm', apiKey: otherKey },
    });
    const contextValue = 'render-context-never-logged';
    const job = await send('POST', `/api/v1/deployments/${server.demoDeploymentId}/dashboard-exports`, {
      format: 'png',
      dashboardPublicId: board.publicId,
      renderAs: {
        type: 'EMBED_USER',
        embedTenantName: 'renders',
        externalId: 'viewer-1',
        securityContext: { region: contextValue },
      },
    });
    const [exported] = await entries(`action=dashboard.export&targetId=${board.dashboardId}`);
    expect(exported).toMatchObject({
      targetType: 'dashboard',
      before: null,
      after: {
        workbookId: board.workbookId,
        format: 'png',
        renderAs: { embedTenantName: 'renders', externalId: 'viewer-1' },
      },
    });
    const log = await wholeAuditLog(server);
    for (const secret of [agentKey, otherKey, job.jobId, contextValue]) expect(log).not.toContain(secret);
  });
});
