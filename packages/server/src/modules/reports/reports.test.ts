import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

const vegaLite = { $schema: 'https://vega.github.io/schema/vega-lite/v5.json', mark: 'bar', encoding: {} };

describe('reports', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    api = contentClient(server, await newDeployment(server));
  });
  afterAll(() => server?.close());

  it('saves a SQL or semantic query with a Vega-Lite v5 spec and column formats', async () => {
    const created = await api.report({
      name: 'Revenue by month',
      sqlQuery: 'SELECT MEASURE(orders.revenue) FROM orders',
      spec: JSON.stringify(vegaLite),
      preferences: { columnFormats: { revenue: { type: 'currency', decimalPlaces: 2 } } },
      fillMissingRows: { member: 'orders.createdAt', excludedDimensions: [] },
    });
    expect(created).toMatchObject({
      type: 'REPORT',
      version: 1,
      spec: vegaLite,
      kind: 'vega',
      preferences: { columnFormats: { revenue: { type: 'currency', decimalPlaces: 2 } } },
      canEdit: true,
      canManage: true,
    });
    expect(created.publicId).toMatch(/^[0-9A-Za-z]{12}$/);
    const semantic = await api.report({
      name: 'Semantic',
      jsonQuery: JSON.stringify({ measures: ['orders.count'] }),
    });
    expect(semantic.jsonQuery).toContain('orders.count');
    const updated = await api.ok('PUT', `/reports/${created.id}`, { title: 'Revenue', spec: vegaLite });
    expect(updated).toMatchObject({ title: 'Revenue', version: 2, name: 'Revenue by month' });
    const read = await api.ok('GET', `/reports/${created.id}`);
    expect(read.lastViewedAt).not.toBeNull();
    expect(await api.ok('DELETE', `/reports/${semantic.id}`)).toEqual({ success: true });
    expect((await api.call('GET', `/reports/${semantic.id}`)).status).toBe(404);
  });

  it('refuses a spec of another Vega-Lite version, bad JSON and a changed publicId', async () => {
    const v4 = await api.call('POST', '/reports', {
      name: 'x',
      spec: { $schema: 'https://vega.github.io/schema/vega-lite/v4.json' },
    });
    expect(v4.status).toBe(400);
    expect(v4.body.errors[0].field).toBe('body/spec');
    expect((await api.call('POST', '/reports', { name: 'x', spec: '{not json' })).status).toBe(400);
    expect((await api.call('POST', '/reports', { name: 'x', jsonQuery: '[1]' })).status).toBe(400);
    const r = await api.report({ name: 'Keyed', publicId: 'abcdefABCDEF' });
    expect(r.publicId).toBe('abcdefABCDEF');
    expect((await api.call('POST', '/reports', { name: 'dupe', publicId: 'abcdefABCDEF' })).status).toBe(409);
    expect((await api.call('PUT', `/reports/${r.id}`, { publicId: 'zzzzzzzzzzzz' })).status).toBe(400);
    expect((await api.call('POST', '/reports', { name: 'x', workbookId: 999999 })).status).toBe(400);
  });

  it('sorts by name, createdAt and updatedAt with cursors; lastViewedAt only with page numbers', async () => {
    const folder = await api.folder('Sorted');
    const names = ['delta', 'alpha', 'charlie', 'bravo', 'echo'];
    for (const name of names) await api.report({ name, folderId: folder.id });
    const collect = async (query: string) => {
      const out: string[] = [];
      let after = '';
      for (;;) {
        const page = await api.ok('GET', `/reports?folderId=${folder.id}&first=2${query}${after}`);
        out.push(...page.items.map((r: { name: string }) => r.name));
        expect(page.data).toEqual(page.items);
        expect(page.count).toBe(5);
        if (!page.pageInfo.hasNextPage) return out;
        after = `&after=${page.pageInfo.endCursor}`;
      }
    };
    expect(await collect('&sortBy=name')).toEqual([...names].sort());
    expect(await collect('&sortBy=name&sortDirection=DESC')).toEqual([...names].sort().reverse());
    expect(await collect('&sortBy=createdAt&sortDirection=ASC')).toEqual(names);
    expect(await collect('&sortBy=updatedAt')).toEqual([...names].reverse());

    const refused = await api.call('GET', '/reports?sortBy=lastViewedAt&first=2');
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('cursor_unavailable_for_sort');
    const list = await api.ok('GET', `/reports?folderId=${folder.id}&sortBy=name`);
    const bravo = list.items.find((r: { name: string }) => r.name === 'bravo');
    await api.ok('GET', `/reports/${bravo.id}`);
    const byView = await api.ok('GET', `/reports?folderId=${folder.id}&sortBy=lastViewedAt&limit=2&page=1`);
    expect(byView.items[0].name).toBe('bravo');
    expect(byView.items).toHaveLength(2);
    const page3 = await api.ok('GET', `/reports?folderId=${folder.id}&sortBy=lastViewedAt&limit=2&page=3`);
    expect(page3.items).toHaveLength(1);
    expect(
      (await api.ok('GET', `/reports?folderId=${folder.id}&search=CHAR`)).items.map(
        (r: { name: string }) => r.name,
      ),
    ).toEqual(['charlie']);
  });
});
