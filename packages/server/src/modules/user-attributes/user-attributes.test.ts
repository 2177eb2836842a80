import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { svgTexts } from '../../render/test-support.ts';
import { chatClient, demoAgentId } from '../chat/test-support.ts';
import { publishBoard } from '../dashboard-data/test-support.ts';
import { listen } from '../data/test-support.ts';
import { contentClient } from '../workspace/test-client.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, string>;

/**
 * Issue 22 item 3: user attributes and their values per account user (reference groups User
 * Attributes and User Attribute Values), and what they change: the rows the sample model's
 * customers policy (`userAttributes.country`) lets a user see, wherever their context is built.
 */
describe('user attributes', () => {
  let server: TestServer;
  let country: { id: number };
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, key = server.adminKey) {
    const res = await server.app.inject({ method, url, headers: bearer(key), payload: payload as object });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  }

  it('creates, lists newest first, filters and updates definitions as the reference shapes them', async () => {
    const created = await call('POST', '/api/v1/user-attributes', {
      name: 'country',
      type: 'string',
      displayName: 'Country',
      description: 'Where the user sells',
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'country',
      type: 'string',
      defaultValue: null,
      description: 'Where the user sells',
      displayName: 'Country',
    });
    country = created.body;
    const level = await call('POST', '/api/v1/user-attributes', {
      name: 'level',
      type: 'number',
      defaultValue: '1',
    });
    expect(level.status).toBe(200);

    const list = await call('GET', '/api/v1/user-attributes');
    expect(list.status).toBe(200);
    expect(list.body.items.map((a: { name: string }) => a.name)).toEqual(['level', 'country']);
    expect(list.body.data).toEqual(list.body.items);
    expect(list.body.count).toBe(2);
    expect(list.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });

    const firstPage = await call('GET', '/api/v1/user-attributes?first=1');
    expect(firstPage.body.items.map((a: { name: string }) => a.name)).toEqual(['level']);
    expect(firstPage.body.pageInfo.hasNextPage).toBe(true);
    const next = await call(
      'GET',
      `/api/v1/user-attributes?first=1&after=${firstPage.body.pageInfo.endCursor}`,
    );
    expect(next.body.items.map((a: { name: string }) => a.name)).toEqual(['country']);
    expect((await call('GET', '/api/v1/user-attributes?offset=1&limit=1')).body.items[0].name).toBe(
      'country',
    );
    expect(
      (await call('GET', '/api/v1/user-attributes?type=number')).body.items.map(
        (a: { name: string }) => a.name,
      ),
    ).toEqual(['level']);
    expect((await call('GET', '/api/v1/user-attributes?name=COUN')).body.count).toBe(1);

    const updated = await call('PUT', `/api/v1/user-attributes/${level.body.id}`, {
      defaultValue: '2',
      displayName: 'Level',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'level',
      type: 'number',
      defaultValue: '2',
      displayName: 'Level',
    });
  });

  it('sets, reads and removes a user value; the default applies without one', async () => {
    const { user } = await userWithKey(server, 'viewer');
    const level = (await call('GET', '/api/v1/user-attributes?name=level')).body.items[0];
    const set = await call('POST', '/api/v1/user-attribute-values', {
      userId: String(user.id),
      userAttributeId: String(country.id),
      value: 'DE',
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      userId: user.id,
      userAttributeId: country.id,
      name: 'country',
      type: 'string',
      displayName: 'Country',
      description: 'Where the user sells',
      value: 'DE',
      formattedValue: 'DE',
    });
    const values = await call('GET', `/api/v1/user-attribute-values/${user.id}`);
    expect(values.status).toBe(200);
    expect(
      values.body.map((v: { name: string; value: unknown; formattedValue: unknown }) => [
        v.name,
        v.value,
        v.formattedValue,
      ]),
    ).toEqual([
      ['country', 'DE', 'DE'],
      ['level', null, '2'],
    ]);
    expect(await server.services.userAttributes.attributesOf(server.tenantId, user.id)).toEqual({
      country: 'DE',
      level: 2,
    });
    // Numbers as ids work too; null removes the value.
    const removed = await call('POST', '/api/v1/user-attribute-values', {
      userId: user.id,
      userAttributeId: country.id,
      value: null,
    });
    expect(removed.status).toBe(200);
    expect(await server.services.userAttributes.attributesOf(server.tenantId, user.id)).toEqual({ level: 2 });
    expect(level.id).toBeGreaterThan(0);
  });

  it.each([
    ['POST', '/api/v1/user-attributes', { type: 'string' }, 400, 'name'],
    ['POST', '/api/v1/user-attributes', { name: 'has space', type: 'string' }, 400, 'name'],
    ['POST', '/api/v1/user-attributes', { name: 'x', type: 'date' }, 400, 'type'],
    [
      'POST',
      '/api/v1/user-attributes',
      { name: 'x', type: 'number', defaultValue: 'many' },
      400,
      'body/defaultValue',
    ],
    [
      'POST',
      '/api/v1/user-attributes',
      { name: 'x', type: 'string_array', defaultValue: '["a", 1]' },
      400,
      'body/defaultValue',
    ],
    ['POST', '/api/v1/user-attributes', { name: 'country', type: 'string' }, 409, 'user_attribute_exists'],
    ['PUT', '/api/v1/user-attributes/999999', { displayName: 'x' }, 404, 'user_attribute_not_found'],
    ['PUT', '/api/v1/user-attributes/ID', { name: 'renamed' }, 400, 'name'],
    [
      'POST',
      '/api/v1/user-attribute-values',
      { userId: 'USER', userAttributeId: 'ID', value: 5 },
      400,
      'body/value',
    ],
    [
      'POST',
      '/api/v1/user-attribute-values',
      { userId: '999999', userAttributeId: 'ID', value: 'DE' },
      400,
      'body/userId',
    ],
    [
      'POST',
      '/api/v1/user-attribute-values',
      { userId: 'USER', userAttributeId: '999999', value: 'DE' },
      400,
      'body/userAttributeId',
    ],
    ['POST', '/api/v1/user-attribute-values', { userId: 'abc', userAttributeId: 'ID' }, 400, 'userId'],
    ['GET', '/api/v1/user-attribute-values/999999', undefined, 404, 'user_not_found'],
  ] as const)('%s %s %j answers %i naming %s and changes nothing', async (method, url, payload, status, named) => {
    const fill = (v: unknown) =>
      v === 'ID' ? String(country.id) : v === 'USER' ? String(server.adminUserId) : v;
    const body = payload && Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, fill(v)]));
    const before = await server.store.db.selectFrom('user_attributes').selectAll().execute();
    const audit = await server.store.db.selectFrom('audit_log').select('id').execute();
    const res = await call(method, url.replace('ID', String(country.id)), body);
    expect(res.status).toBe(status);
    expect(JSON.stringify(res.body)).toContain(named);
    expect(await server.store.db.selectFrom('user_attributes').selectAll().execute()).toEqual(before);
    expect(await server.store.db.selectFrom('audit_log').select('id').execute()).toEqual(audit);
  });

  it('is for admins only', async () => {
    const { key } = await userWithKey(server, 'developer');
    expect((await call('GET', '/api/v1/user-attributes', undefined, key)).status).toBe(403);
    expect(
      (await call('POST', '/api/v1/user-attribute-values', { userId: '1', userAttributeId: '1' }, key))
        .status,
    ).toBe(403);
  });

  it('changes the rows a row-level policy lets the user see: data API, dashboard widget, chat and notification', async () => {
    const { board, workbook } = await publishBoard(server);
    const seller = await userWithKey(server, 'developer');
    await contentClient(server, server.demoDeploymentId).grant({
      type: 'WORKBOOK',
      id: workbook.id,
      userId: seller.user.id,
      level: 'view',
    });
    const setCountry = async (value: string | null) =>
      expect(
        (
          await call('POST', '/api/v1/user-attribute-values', {
            userId: seller.user.id,
            userAttributeId: country.id,
            value,
          })
        ).status,
      ).toBe(200);
    const countries = (rows: Row[]) => rows.map((r) => r['customers.country']).sort();

    const dataApi = async () => {
      const minted = await call(
        'POST',
        `/api/v1/deployments/${server.demoDeploymentId}/token`,
        {},
        seller.key,
      );
      expect(minted.status).toBe(200);
      const res = await server.app.inject({
        method: 'POST',
        url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
        headers: { authorization: minted.body.serviceApiToken },
        payload: { query: { measures: ['customers.count'], dimensions: ['customers.country'] } },
      });
      expect(res.statusCode, res.body).toBe(200);
      return countries(res.json().data);
    };
    const widget = async () => {
      const res = await call(
        'POST',
        `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${board.publicId}/widgets/country/data`,
        {},
        seller.key,
      );
      expect(res.status).toBe(200);
      return countries(res.body.data);
    };
    const chat = chatClient(await listen(server), server.adminKey, await demoAgentId(server));
    const chatRows = async () => {
      const res = await chat.turn({
        input: 'Number of customers by country',
        sessionSettings: { internalId: seller.user.email },
      });
      expect(res.status).toBe(200);
      const sql = res.lines.find((l) => l.toolCall?.name === 'serviceSqlApi' && l.toolCall.result);
      return (JSON.parse(sql?.toolCall.result).data as string[][]).map((row) => row.join(' '));
    };
    const rendered = async () => {
      const file = await server.services.notifications.renderer.render({
        tenantId: server.tenantId,
        deploymentId: server.demoDeploymentId,
        dashboardPublicId: board.publicId,
        subject: { kind: 'user', userId: seller.user.id },
        filters: null,
        timeGrains: null,
        format: 'png',
      });
      // The board's email widget is hidden outside group admin (a member policy): that one fails.
      expect(file.failedWidgets.map((w) => w.id)).toEqual(['email']);
      return svgTexts(file.svg);
    };

    await setCountry(null);
    const all = await dataApi();
    expect(all.length).toBeGreaterThan(2);
    expect(all).toContain('DE');
    const other = all.find((c) => c !== 'DE') as string;
    expect(await widget()).toEqual(all);
    const everyChat = await chatRows();
    expect(everyChat.length).toBe(all.length);
    const everyText = await rendered();
    expect(everyText).toContain(other);

    await setCountry('DE');
    expect(await dataApi()).toEqual(['DE']);
    expect(await widget()).toEqual(['DE']);
    const germanChat = await chatRows();
    expect(germanChat).toHaveLength(1);
    expect(germanChat[0]).toContain('DE');
    const germanText = await rendered();
    expect(germanText).toContain('DE');
    expect(germanText).not.toContain(other);

    // A caller naming the attribute in the token's context decides it (developers mint any context).
    const minted = await call(
      'POST',
      `/api/v1/deployments/${server.demoDeploymentId}/token`,
      { securityContext: { serviceCloud: { userAttributes: { country: other } } } },
      seller.key,
    );
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: minted.body.serviceApiToken },
      payload: { query: { measures: ['customers.count'], dimensions: ['customers.country'] } },
    });
    expect(countries(res.json().data)).toEqual([other]);
  });

  it("stores an embed session's userAttributeDefinitions as the account's, and checks values against stored ones", async () => {
    await call('PUT', '/api/v1/embed/settings', { enabled: true });
    const generate = (body: Record<string, unknown>) =>
      call('POST', '/api/v1/embed/generate-session', {
        deploymentId: server.demoDeploymentId,
        externalId: 'embedded-1',
        ...body,
      });
    const made = await generate({
      userAttributeDefinitions: [
        { name: 'region', type: 'string', displayName: 'Region', defaultValue: 'EU' },
      ],
      userAttributes: [{ name: 'country', value: 'FR' }],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const region = (await call('GET', '/api/v1/user-attributes?name=region')).body.items;
    expect(region).toEqual([
      {
        id: expect.any(Number),
        name: 'region',
        type: 'string',
        defaultValue: 'EU',
        description: null,
        displayName: 'Region',
      },
    ]);
    // The stored `country` is a string: a number is refused, and so is redefining its type.
    const wrongValue = await generate({ userAttributes: [{ name: 'country', value: 7 }] });
    expect(wrongValue.status).toBe(400);
    expect(JSON.stringify(wrongValue.body)).toContain('body/userAttributes/0/value');
    const retyped = await generate({ userAttributeDefinitions: [{ name: 'country', type: 'number' }] });
    expect(retyped.status).toBe(400);
    expect(JSON.stringify(retyped.body)).toContain('body/userAttributeDefinitions/0/type');
  });
});
