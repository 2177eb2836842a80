import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { auditEntries } from './test-support.ts';

/**
 * Issue 22 items 4 and 5: the tenant settings' `auditLogEnabled` (reference group Tenant
 * Settings) decides whether changes are recorded, and `auditLogRetentionDays` how long entries
 * are kept: older ones are deleted by a sweep that every replica runs.
 */
describe('audit log: the switch and the retention of tenant settings', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const entries = (query: string) => auditEntries(server, query);
  const send = async (method: 'POST' | 'PUT', url: string, payload: object) => {
    const res = await server.app.inject({ method, url, headers: bearer(server.adminKey), payload });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200);
    return res.json();
  };
  const settings = (payload: object) => send('PUT', '/api/v1/tenant/settings', payload);

  it('records nothing while the audit log is off, but always the switch itself', async () => {
    const on = await send('POST', '/api/v1/groups', { name: 'recorded while on' });
    expect((await entries(`targetType=group&targetId=${on.id}`)).map((e) => e.action)).toEqual([
      'group.create',
    ]);

    expect(await settings({ auditLogEnabled: false })).toMatchObject({
      auditLogEnabled: false,
      auditLogEnabledCurrent: false,
    });
    const off = await send('POST', '/api/v1/groups', { name: 'made while off' });
    await send('PUT', `/api/v1/groups/${on.id}`, { name: 'renamed while off' });
    // A settings change that leaves the switch alone is not recorded either.
    await settings({ maintenanceWindowTime: '03:15' });
    expect(await entries(`targetType=group&targetId=${off.id}`)).toEqual([]);
    expect((await entries(`targetType=group&targetId=${on.id}`)).map((e) => e.action)).toEqual([
      'group.create',
    ]);

    await settings({ auditLogEnabled: true });
    await send('PUT', `/api/v1/groups/${off.id}`, { name: 'renamed while on' });
    expect((await entries(`targetType=group&targetId=${off.id}`)).map((e) => e.action)).toEqual([
      'group.update',
    ]);
    const switches = await entries('action=tenant_settings.update&first=3');
    expect(switches.map((e) => [e.before.auditLogEnabled, e.after.auditLogEnabled])).toEqual([
      [false, true],
      [true, false],
    ]);
  });

  it('deletes entries past the retention, and none while it is 0', async () => {
    expect(server.services.auditLogSweeper.started).toBe(true);
    const db = server.store.db;
    for (const name of ['aged one', 'aged two', 'fresh'])
      await send('POST', '/api/v1/groups', { name: `retained ${name}` });
    const created = await entries('action=group.create&first=3');
    const [fresh, ...aged] = created.map((e) => e.id as number);
    const age = (days: number) =>
      sql`UPDATE audit_log SET occurred_at = now() - make_interval(days => ${days})
          WHERE id IN (${sql.join(aged)})`.execute(db);
    await age(40);
    const ids = async () =>
      (await db.selectFrom('audit_log').select('id').where('tenant_id', '=', server.tenantId).execute()).map(
        (r) => Number(r.id),
      );

    // 0 (the default) keeps everything.
    expect((await settings({})).auditLogRetentionDays).toBe(0);
    expect(await server.services.auditLogSweeper.sweep()).toBe(0);
    expect(await ids()).toEqual(expect.arrayContaining([fresh, ...aged]));

    // Longer than their age: kept. Shorter: gone, both sweeping replicas together deleting each once.
    await settings({ auditLogRetentionDays: 60 });
    expect(await server.services.auditLogSweeper.sweep()).toBe(0);
    await settings({ auditLogRetentionDays: 30 });
    const before = (await ids()).length;
    const swept = await Promise.all([
      server.services.auditLogSweeper.sweep(),
      server.services.auditLogSweeper.sweep(),
    ]);
    expect(swept[0] + swept[1]).toBe(2);
    const left = await ids();
    expect(left).toHaveLength(before - 2);
    expect(left).toContain(fresh);
    for (const id of aged) expect(left).not.toContain(id);
  });
});
