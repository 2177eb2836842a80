import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { embedToken } from './test-support.ts';

/**
 * Creator mode for embed tenants (issue 12; spec 4.3 rules 1 and 2): an embed user of a
 * creator-mode session creates workbooks, reports and dashboards in its embed tenant's space,
 * shares them with that tenant's groups, and never sees another tenant's content or groups. Over
 * real HTTP on loopback, on the store the run was started with.
 */
describe('creator mode for embed tenants', () => {
  let server: TestServer;
  let base: string;
  let deploymentId: number;
  /** Tokens: A's creator in `ops`, A's colleague in `ops`, A's outsider (no group), B's creator, a non-creator. */
  const tokens = {} as Record<'ada' | 'bob' | 'cy' | 'dee' | 'viewer', string>;

  async function call(token: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }
  const dep = (path: string) => `/deployments/${deploymentId}${path}`;
  const fields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

  const creator = (embedTenantName: string, externalId: string, tenantGroups: string[]) =>
    embedToken(server, {
      deploymentId,
      externalId,
      creatorMode: true,
      embedTenantName,
      tenantGroups,
      tenantGroupDefinitions: tenantGroups.map((name) => ({
        name,
        description: `${name} of ${embedTenantName}`,
      })),
    });

  /** What A's creator made: a workbook with a SQL report, published, shared with A's `ops` group. */
  const made = {} as { workbookId: number; reportId: number; publicId: string; opsGroupId: number };

  beforeAll(async () => {
    server = await startTestServer();
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const address = server.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
    deploymentId = server.demoDeploymentId;
    // A global group with the same name as a tenant group: it must never show in creator mode.
    const global = await fetch(`${base}/api/v1/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ops' }),
    });
    expect(global.status).toBe(200);
    tokens.ada = await creator('acme', 'ada', ['ops']);
    tokens.bob = await creator('acme', 'bob', ['ops']);
    tokens.cy = await creator('acme', 'cy', []);
    tokens.dee = await creator('bolt', 'dee', ['ops']);
    tokens.viewer = await embedToken(server, { deploymentId, externalId: 'eve', embedTenantName: 'acme' });
  });
  afterAll(() => server?.close());

  it("creates, publishes and shares inside its tenant's space; its tenant group sees it, others do not", async () => {
    const workbook = await call(tokens.ada, 'POST', dep('/workbooks'), { name: 'Acme sales' });
    expect(workbook.status).toBe(200);
    made.workbookId = workbook.body.id;
    const report = await call(tokens.ada, 'POST', dep('/reports'), {
      name: 'Answer',
      sqlQuery: 'SELECT 42 AS answer',
      workbookId: made.workbookId,
    });
    expect(report.status).toBe(200);
    made.reportId = report.body.id;
    // allowEmbed on: still no embed token of another tenant reads it (spec 4.3 rule 2).
    const published = await call(tokens.ada, 'POST', dep(`/workbooks/${made.workbookId}/publish`), {
      workbookId: made.workbookId,
      allowEmbed: true,
      config: {
        widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: made.reportId } }],
      },
    });
    expect(published.status).toBe(200);
    made.publicId = published.body.publicId;

    // The creator reads its own widget rows under its own security context.
    const rows = await call(tokens.ada, 'POST', dep(`/dashboards/${made.publicId}/widgets/w1/data`), {});
    expect(rows.status).toBe(200);
    expect(rows.body.data).toEqual([{ answer: '42' }]);

    // Only the tenant's own groups are listed; the global `ops` is not among them.
    const groups = await call(tokens.ada, 'GET', '/embed-tenants/acme/groups');
    expect(groups.status).toBe(200);
    expect(groups.body.items.map((g: { name: string }) => g.name)).toEqual(['ops']);
    made.opsGroupId = groups.body.items[0].id;
    const globals = await call(tokens.ada, 'GET', '/groups');
    expect(globals.status).toBe(403);

    // Before sharing, the colleague sees nothing; after, the workbook, its report and its dashboard.
    expect((await call(tokens.bob, 'GET', dep('/workbooks'))).body.items).toEqual([]);
    expect((await call(tokens.bob, 'GET', dep(`/workbooks/${made.workbookId}`))).status).toBe(404);
    for (const [type, id] of [
      ['WORKBOOK', made.workbookId],
      ['REPORT', made.reportId],
    ] as const) {
      const share = await call(tokens.ada, 'PUT', dep('/permissions'), {
        type,
        id,
        embedGroupId: made.opsGroupId,
        level: 'view',
      });
      expect(share.status).toBe(200);
      expect(share.body.embedGroupId).toBe(made.opsGroupId);
    }
    const bobList = await call(tokens.bob, 'GET', dep('/workbooks'));
    expect(bobList.body.items.map((w: { id: number }) => w.id)).toEqual([made.workbookId]);
    const bobWorkbook = await call(tokens.bob, 'GET', dep(`/workbooks/${made.workbookId}`));
    expect(bobWorkbook.body.publishedDashboard.publicId).toBe(made.publicId);
    const bobReports = await call(tokens.bob, 'GET', dep('/reports'));
    expect(bobReports.body.items.map((r: { id: number }) => r.id)).toEqual([made.reportId]);
    const bobRows = await call(tokens.bob, 'POST', dep(`/dashboards/${made.publicId}/widgets/w1/data`), {});
    expect(bobRows.body.data).toEqual([{ answer: '42' }]);
    // A view share is not edit: the colleague cannot rename or delete it.
    expect((await call(tokens.bob, 'PUT', dep(`/workbooks/${made.workbookId}`), { name: 'x' })).status).toBe(
      403,
    );
    expect((await call(tokens.bob, 'DELETE', dep(`/workbooks/${made.workbookId}`))).status).toBe(403);

    // A user of the same tenant outside the group sees none of it.
    expect((await call(tokens.cy, 'GET', dep('/workbooks'))).body.items).toEqual([]);
    expect((await call(tokens.cy, 'GET', dep('/reports'))).body.items).toEqual([]);
    expect((await call(tokens.cy, 'GET', dep(`/workbooks/${made.workbookId}`))).status).toBe(404);
    expect((await call(tokens.cy, 'GET', dep(`/reports/${made.reportId}`))).status).toBe(404);

    // The owner updates its own, and the account's admin key sees the tenant's content too.
    const renamed = await call(tokens.ada, 'PUT', dep(`/workbooks/${made.workbookId}`), {
      name: 'Acme revenue',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Acme revenue');
    const adminList = await call(server.adminKey, 'GET', dep('/workbooks?first=100'));
    expect(adminList.body.items.map((w: { id: number }) => w.id)).toContain(made.workbookId);
  });

  it("shows a user of another tenant nothing of this tenant's content or groups", async () => {
    expect(made.publicId).toBeDefined();
    expect((await call(tokens.dee, 'GET', dep('/workbooks'))).body.items).toEqual([]);
    expect((await call(tokens.dee, 'GET', dep('/reports'))).body.items).toEqual([]);
    const get = await call(tokens.dee, 'GET', dep(`/workbooks/${made.workbookId}`));
    expect(get.status).toBe(404);
    expect(JSON.stringify(get.body)).not.toContain('Acme');
    expect((await call(tokens.dee, 'GET', dep(`/reports/${made.reportId}`))).status).toBe(404);
    expect(
      (await call(tokens.dee, 'POST', dep(`/dashboards/${made.publicId}/widgets/w1/data`), {})).status,
    ).toBe(404);
    expect((await call(tokens.dee, 'GET', `/embed/dashboard/${made.publicId}`)).status).toBe(404);
    expect((await call(tokens.dee, 'GET', '/embed-tenants/acme/groups')).status).toBe(404);
    const ownGroups = await call(tokens.dee, 'GET', '/embed-tenants/bolt/groups');
    expect(ownGroups.body.items.map((g: { id: number }) => g.id)).not.toContain(made.opsGroupId);
    // Nor can it write to it, or duplicate it from the shared workspace.
    expect((await call(tokens.dee, 'PUT', dep(`/workbooks/${made.workbookId}`), { name: 'x' })).status).toBe(
      404,
    );
    expect((await call(tokens.dee, 'DELETE', dep(`/workbooks/${made.workbookId}`))).status).toBe(404);
    expect((await call(tokens.dee, 'POST', dep(`/workbooks/${made.workbookId}/duplicate`), {})).status).toBe(
      404,
    );

    // Sharing its own workbook with A's group, a global group or a user is refused, naming the field.
    const own = await call(tokens.dee, 'POST', dep('/workbooks'), { name: 'Bolt board' });
    expect(own.status).toBe(200);
    const share = (grantee: Record<string, number>) =>
      call(tokens.dee, 'PUT', dep('/permissions'), {
        type: 'WORKBOOK',
        id: own.body.id,
        level: 'view',
        ...grantee,
      });
    const toOtherTenant = await share({ embedGroupId: made.opsGroupId });
    expect(toOtherTenant.status).toBe(400);
    expect(fields(toOtherTenant.body)).toEqual(['body/embedGroupId']);
    const globalId = (await call(server.adminKey, 'GET', '/groups')).body.items.find(
      (g: { name: string }) => g.name === 'ops',
    ).id;
    const toGlobal = await share({ groupId: globalId });
    expect(toGlobal.status).toBe(400);
    expect(fields(toGlobal.body)).toEqual(['body/groupId']);
    const toUser = await share({ userId: 1 });
    expect(toUser.status).toBe(400);
    expect(fields(toUser.body)).toEqual(['body/userId']);
    const grants = await call(tokens.dee, 'GET', dep(`/permissions?type=WORKBOOK&id=${own.body.id}`));
    expect(grants.body.items).toHaveLength(1);
    // And A's users never see B's workbook.
    expect((await call(tokens.ada, 'GET', dep(`/workbooks/${own.body.id}`))).status).toBe(404);
  });

  it('duplicates a workbook shared with its group into a copy of its own', async () => {
    expect(made.publicId).toBeDefined();
    const copy = await call(tokens.bob, 'POST', dep(`/workbooks/${made.workbookId}/duplicate`), {
      shared: true,
    });
    expect(copy.status).toBe(200);
    expect(copy.body.name).toBe('Copy of Acme revenue');
    // Bob owns the copy (he may rename it); Ada, who shared the source, does not see it.
    expect((await call(tokens.bob, 'PUT', dep(`/workbooks/${copy.body.id}`), { name: 'Mine' })).status).toBe(
      200,
    );
    expect((await call(tokens.ada, 'GET', dep(`/workbooks/${copy.body.id}`))).status).toBe(404);
    const rows = await call(
      tokens.bob,
      'POST',
      dep(`/dashboards/${copy.body.publishedDashboard.publicId}/widgets/w1/data`),
      {},
    );
    expect(rows.body.data).toEqual([{ answer: '42' }]);
  });

  it('lets only the owner remove a share it made; the group then sees nothing of it', async () => {
    expect(made.publicId).toBeDefined();
    const shareOf = async (type: 'WORKBOOK' | 'REPORT', id: number) => {
      const grants = await call(tokens.ada, 'GET', dep(`/permissions?type=${type}&id=${id}`));
      expect(grants.status).toBe(200);
      const share = grants.body.items.find(
        (g: { embedGroupId: number | null }) => g.embedGroupId === made.opsGroupId,
      );
      expect(share).toBeDefined();
      return share.id as number;
    };
    const workbookShare = await shareOf('WORKBOOK', made.workbookId);
    const reportShare = await shareOf('REPORT', made.reportId);

    // Another tenant's creator and a user of the tenant outside the group cannot even tell it exists;
    // the colleague who views it may not change who sees it; a session without creator mode may not try.
    for (const [who, status, code] of [
      ['dee', 404, 'permission_not_found'],
      ['cy', 404, 'permission_not_found'],
      ['bob', 403, 'content_access_denied'],
      ['viewer', 403, 'embed_creator_mode_required'],
    ] as const) {
      for (const id of [workbookShare, reportShare]) {
        const refused = await call(tokens[who], 'DELETE', dep(`/permissions/${id}`));
        expect(refused.status, who).toBe(status);
        expect(refused.body.code, who).toBe(code);
      }
    }
    // Nothing changed: the colleague still sees the workbook and its report.
    expect((await call(tokens.bob, 'GET', dep(`/workbooks/${made.workbookId}`))).status).toBe(200);
    expect((await call(tokens.bob, 'GET', dep(`/reports/${made.reportId}`))).status).toBe(200);

    // The owner removes it, the report's grant first (as the embed page does), then the workbook's.
    for (const id of [reportShare, workbookShare]) {
      const removed = await call(tokens.ada, 'DELETE', dep(`/permissions/${id}`));
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ success: true });
    }
    // (Bob's own copy, made from it in the test before, stays his.)
    const ids = (res: { body: { items: { id: number }[] } }) => res.body.items.map((i) => i.id);
    expect(ids(await call(tokens.bob, 'GET', dep('/workbooks')))).not.toContain(made.workbookId);
    expect(ids(await call(tokens.bob, 'GET', dep('/reports')))).not.toContain(made.reportId);
    expect((await call(tokens.bob, 'GET', dep(`/workbooks/${made.workbookId}`))).status).toBe(404);
    expect((await call(tokens.bob, 'GET', dep(`/reports/${made.reportId}`))).status).toBe(404);
    // Its dashboard allows signed embedding, which lets any session of the tenant read it; with that
    // turned off, the colleague reads it no more, and is told it does not exist (not "not allowed").
    expect((await call(tokens.bob, 'GET', `/embed/dashboard/${made.publicId}`)).status).toBe(200);
    const off = await call(server.adminKey, 'PATCH', `/embed/dashboard/${made.publicId}`, {
      allowEmbed: false,
    });
    expect(off.status).toBe(200);
    for (const who of ['bob', 'cy', 'dee'] as const) {
      const read = await call(tokens[who], 'GET', `/embed/dashboard/${made.publicId}`);
      expect([read.status, read.body.code], who).toEqual([404, 'dashboard_not_found']);
      const rows = await call(tokens[who], 'POST', dep(`/dashboards/${made.publicId}/widgets/w1/data`), {});
      expect(rows.status, who).toBe(404);
    }
    expect((await call(tokens.ada, 'GET', `/embed/dashboard/${made.publicId}`)).status).toBe(200);
    // The owner keeps its own grant and its dashboard; removing the share again finds nothing.
    expect((await call(tokens.ada, 'GET', dep(`/workbooks/${made.workbookId}`))).status).toBe(200);
    expect((await call(tokens.ada, 'DELETE', dep(`/permissions/${workbookShare}`))).status).toBe(404);
  });

  it("clones an admin's workbook shared with its tenant (embed access) only from the shared workspace", async () => {
    const admin = (method: string, path: string, body?: unknown) => call(server.adminKey, method, path, body);
    const source = await admin('POST', dep('/workbooks'), { name: 'House board' });
    const report = await admin('POST', dep('/reports'), {
      name: 'Seven',
      sqlQuery: 'SELECT 7 AS seven',
      workbookId: source.body.id,
    });
    const board = await admin('POST', dep(`/workbooks/${source.body.id}/publish`), {
      workbookId: source.body.id,
      config: {
        widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: report.body.id } }],
      },
    });
    expect(board.status).toBe(200);
    // Not shared yet: invisible to the creator.
    expect((await call(tokens.ada, 'GET', dep(`/workbooks/${source.body.id}`))).status).toBe(404);
    const share = await admin('PUT', dep(`/workbooks/${source.body.id}/embed-access`), {
      embedTenantName: 'acme',
      action: 'read',
    });
    expect(share.status).toBe(200);
    expect((await call(tokens.ada, 'GET', dep(`/workbooks/${source.body.id}`))).body.name).toBe(
      'House board',
    );
    // Read-only: no edit, no delete, no change of who sees it, and no copy of its live reports and draft.
    expect((await call(tokens.ada, 'PUT', dep(`/workbooks/${source.body.id}`), { name: 'x' })).status).toBe(
      403,
    );
    expect((await call(tokens.ada, 'DELETE', dep(`/workbooks/${source.body.id}`))).status).toBe(403);
    const hostGrants = await admin('GET', dep(`/permissions?type=WORKBOOK&id=${source.body.id}`));
    expect(hostGrants.body.items.length).toBeGreaterThan(0);
    for (const grant of hostGrants.body.items)
      expect((await call(tokens.ada, 'DELETE', dep(`/permissions/${grant.id}`))).status).toBe(403);
    expect((await admin('GET', dep(`/workbooks/${source.body.id}`))).body.name).toBe('House board');
    const live = await call(tokens.ada, 'POST', dep(`/workbooks/${source.body.id}/duplicate`), {});
    expect(live.status).toBe(400);
    expect(fields(live.body)).toEqual(['body/shared']);
    const copy = await call(tokens.ada, 'POST', dep(`/workbooks/${source.body.id}/duplicate`), {
      shared: true,
    });
    expect(copy.status).toBe(200);
    const rows = await call(
      tokens.ada,
      'POST',
      dep(`/dashboards/${copy.body.publishedDashboard.publicId}/widgets/w1/data`),
      {},
    );
    expect(rows.body.data).toEqual([{ seven: '7' }]);
    // The copy is in acme's space, owned by Ada: bolt's creator sees neither it nor the source.
    expect((await call(tokens.dee, 'GET', dep(`/workbooks/${copy.body.id}`))).status).toBe(404);
    expect((await call(tokens.dee, 'GET', dep(`/workbooks/${source.body.id}`))).status).toBe(404);
  });

  it('refuses every write and the tenant space to an embed token without creator mode', async () => {
    const attempts = [
      ['GET', dep('/workbooks')],
      ['POST', dep('/workbooks'), { name: 'nope' }],
      ['POST', dep('/reports'), { name: 'nope', sqlQuery: 'SELECT 1' }],
      ['PUT', dep(`/workbooks/${made.workbookId}`), { name: 'nope' }],
      ['DELETE', dep(`/workbooks/${made.workbookId}`)],
      ['POST', dep(`/workbooks/${made.workbookId}/publish`), { workbookId: made.workbookId }],
      ['PUT', dep('/permissions'), { type: 'WORKBOOK', id: made.workbookId, embedGroupId: 1, level: 'view' }],
      ['GET', '/embed-tenants/acme/groups'],
    ] as const;
    for (const [method, path, body] of attempts) {
      const res = await call(tokens.viewer, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('embed_creator_mode_required');
    }
    const admin = await call(server.adminKey, 'GET', dep(`/workbooks/${made.workbookId}`));
    expect(admin.body.name).toBe('Acme revenue');
  });

  it('gives 20 parallel creates 20 distinct workbooks, each listed once', async () => {
    // A tenant of its own, so that its space holds exactly what this test creates.
    const token = await creator('crowd', 'fay', []);
    const names = Array.from({ length: 20 }, (_, i) => `Parallel ${i}`);
    const created = await Promise.all(names.map((name) => call(token, 'POST', dep('/workbooks'), { name })));
    expect(created.map((r) => r.status)).toEqual(names.map(() => 200));
    const ids = created.map((r) => r.body.id as number);
    expect(new Set(ids).size).toBe(20);
    const listed = await call(token, 'GET', dep('/workbooks?first=100'));
    expect(listed.body.items.map((w: { name: string }) => w.name).sort()).toEqual([...names].sort());
    expect(listed.body.count).toBe(20);
  });
});
