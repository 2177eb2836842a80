import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';

/** The account's tenant settings (issue 22 item 4; reference group Tenant Settings). */
describe('tenant settings', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const call = async (method: 'GET' | 'PUT', key: string | null = server.adminKey, payload?: object) => {
    const res = await server.app.inject({
      method,
      url: '/api/v1/tenant/settings',
      headers: key === null ? {} : bearer(key),
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  };

  it('reads defaults, then round-trips what an admin writes; omitted or null fields stay', async () => {
    // The audit log is on until an admin turns it off (issue 22 item 5; migration 0026).
    expect((await call('GET')).body).toEqual({
      auditLogEnabled: true,
      auditLogEnabledCurrent: true,
      auditLogEnabledTimestamp: 0,
      hasSupportAccess: false,
      useAIBIUserInterface: false,
      maintenanceWindowEnabled: false,
      maintenanceWindowDay: 'sunday',
      maintenanceWindowTime: '02:00',
      oidcEnabled: false,
      auditLogRetentionDays: 0,
    });
    const before = Date.now();
    const set = await call('PUT', server.adminKey, {
      auditLogEnabled: false,
      auditLogRetentionDays: 90,
      maintenanceWindowEnabled: true,
      maintenanceWindowDay: 'wednesday',
      maintenanceWindowTime: '23:30',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      auditLogEnabled: false,
      auditLogEnabledCurrent: false,
      auditLogRetentionDays: 90,
      maintenanceWindowEnabled: true,
      maintenanceWindowDay: 'wednesday',
      maintenanceWindowTime: '23:30',
    });
    const changedAt = set.body.auditLogEnabledTimestamp;
    expect(changedAt).toBeGreaterThanOrEqual(before - 60_000);
    // The same value again is no change: the timestamp stays. Nulls and omissions leave fields alone.
    const again = await call('PUT', server.adminKey, {
      auditLogEnabled: false,
      maintenanceWindowDay: null,
      hasSupportAccess: true,
    });
    expect(again.body).toMatchObject({
      auditLogEnabledTimestamp: changedAt,
      maintenanceWindowDay: 'wednesday',
      maintenanceWindowTime: '23:30',
      hasSupportAccess: true,
    });
    expect((await call('GET')).body).toEqual(again.body);
  });

  it('refuses bad values with 400 naming the field, and changes nothing', async () => {
    const before = (await call('GET')).body;
    const cases: Array<[object, string]> = [
      [{ maintenanceWindowDay: 'someday' }, 'body/maintenanceWindowDay'],
      [{ maintenanceWindowTime: '24:00' }, 'body/maintenanceWindowTime'],
      [{ maintenanceWindowTime: '7:5' }, 'body/maintenanceWindowTime'],
      [{ auditLogEnabled: 'yes' }, 'body/auditLogEnabled'],
      [{ oidcEnabled: 1 }, 'body/oidcEnabled'],
      [{ auditLogRetentionDays: -1 }, 'body/auditLogRetentionDays'],
      [{ auditLogRetentionDays: 36501 }, 'body/auditLogRetentionDays'],
      [{ auditLogRetentionDays: 1.5 }, 'body/auditLogRetentionDays'],
      [{ auditLogRetentionMonths: 3 }, 'body/auditLogRetentionMonths'],
    ];
    for (const [payload, field] of cases) {
      const bad = await call('PUT', server.adminKey, {
        hasSupportAccess: !before.hasSupportAccess,
        ...payload,
      });
      expect(bad.status, JSON.stringify(payload)).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    expect((await call('GET')).body).toEqual(before);
  });

  it('is read by every role, written by admins only; 401 without a credential', async () => {
    const before = (await call('GET')).body;
    for (const role of ['viewer', 'developer'] as const) {
      const { key } = await userWithKey(server, role);
      expect((await call('GET', key)).body).toEqual(before);
      expect((await call('PUT', key, { oidcEnabled: !before.oidcEnabled })).status).toBe(403);
    }
    const scoped = await createKey(server, { name: 'scoped', deploymentIds: [server.demoDeploymentId] });
    expect((await call('GET', scoped.key)).status).toBe(200);
    expect((await call('PUT', scoped.key, { oidcEnabled: !before.oidcEnabled })).status).toBe(403);
    expect((await call('GET', null)).status).toBe(401);
    expect((await call('PUT', null, { oidcEnabled: true })).status).toBe(401);
    expect((await call('GET')).body).toEqual(before);
  });

  it('keeps one row per tenant under concurrent first writes', async () => {
    const writes = await Promise.all(
      ['monday', 'tuesday', 'friday', 'saturday'].map((day) =>
        call('PUT', server.adminKey, { maintenanceWindowDay: day }),
      ),
    );
    expect(writes.map((w) => w.status)).toEqual([200, 200, 200, 200]);
    const rows = await server.store.db
      .selectFrom('tenant_settings')
      .select('maintenance_window_day')
      .where('tenant_id', '=', server.tenantId)
      .execute();
    expect(rows).toHaveLength(1);
    expect((await call('GET')).body.maintenanceWindowDay).toBe(rows[0]!.maintenance_window_day);
  });
});
