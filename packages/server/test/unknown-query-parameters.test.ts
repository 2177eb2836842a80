import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenFor } from '../src/modules/data/test-support.ts';
import { bearer, startTestServer, type TestServer } from './harness.ts';
import { createFixtures, type Fixtures, managementRoutes, routeSamples } from './route-samples.ts';
import { scimClient } from './scim-client.ts';
import { storeChangedSince, storeMark } from './store-changes.ts';

const withUnknown = (url: string) => `${url}${url.includes('?') ? '&' : '?'}x-unknown=42`;
const userSchema = 'urn:ietf:params:scim:schemas:core:2.0:User';

/**
 * A query parameter no route knows is refused like an unknown body field: a typo in a filter
 * (`?folderid=3`) must not quietly answer the unfiltered list.
 */
describe('unknown query parameters', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  let scim: Awaited<ReturnType<typeof scimClient>>;
  let scimUserId: string;
  let scimGroupId: string;

  beforeAll(async () => {
    server = await startTestServer();
    fixtures = await createFixtures(server);
    scim = await scimClient(server);
    scimUserId = (await scim.user('query-test@example.com')).id;
    scimGroupId = (await scim.group('query test')).id;
  });
  afterAll(() => server?.close());

  /** The routes in parts, a test each, so that a test's work does not grow with the number of routes. */
  const parts = 4;
  for (let part = 0; part < parts; part++)
    it(`are refused on every management route with 400 naming the parameter, writing nothing (part ${part + 1} of ${parts})`, async () => {
      const failures: string[] = [];
      for (const route of managementRoutes(server).filter((_, i) => i % parts === part)) {
        const id = `${route.method} ${route.url}`;
        const sample = await routeSamples[id](fixtures);
        const before = await storeMark(server);
        const res = await server.app.inject({
          method: route.method as 'GET',
          url: withUnknown(sample.url),
          headers: bearer(server.adminKey),
          ...(sample.payload ? { payload: sample.payload } : {}),
        });
        const named = res.statusCode === 400 ? (res.json().errors ?? []) : [];
        if (!named.some((e: { field: string; message: string }) => e.field === 'querystring/x-unknown'))
          failures.push(`${id}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        else
          expect(named).toContainEqual({ field: 'querystring/x-unknown', message: 'is not a known field' });
        if ((await storeChangedSince(server, before)).length > 0) failures.push(`${id}: the store changed`);
      }
      expect(failures).toEqual([]);
    });

  /** A valid request body for each SCIM write, so that only the query string is wrong. */
  function scimPayload(method: string, url: string): unknown {
    const isGroup = /groups/i.test(url);
    if (url.endsWith('/.search')) return { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'] };
    if (method === 'PATCH')
      return {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [
          { op: 'replace', path: isGroup ? 'displayName' : 'active', value: isGroup ? 'x' : false },
        ],
      };
    if (method === 'POST' || method === 'PUT')
      return isGroup
        ? { displayName: 'never written' }
        : { schemas: [userSchema], userName: 'never-written' };
    return undefined;
  }

  function scimUrl(url: string): string {
    const id = /groups/i.test(url)
      ? scimGroupId
      : /users/i.test(url)
        ? scimUserId
        : url.includes('ResourceTypes')
          ? 'User'
          : userSchema;
    return url.replace(':id', id);
  }

  it('are refused on every SCIM route in the SCIM error schema, writing nothing', async () => {
    const scimRoutes = server.routes.filter((r) => r.url.startsWith('/api/scim/v2/'));
    expect(scimRoutes.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const route of scimRoutes) {
      const before = await storeMark(server);
      const payload = scimPayload(route.method, route.url);
      const res = await scim.call(
        route.method as 'GET',
        withUnknown(scimUrl(route.url).replace('/api/scim/v2', '')),
        payload,
      );
      if (
        res.status !== 400 ||
        res.body.scimType !== 'invalidValue' ||
        !String(res.body.detail).includes('querystring/x-unknown')
      )
        failures.push(
          `${route.method} ${route.url}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
        );
      if ((await storeChangedSince(server, before)).length > 0)
        failures.push(`${route.method} ${route.url}: the store changed`);
    }
    expect(failures).toEqual([]);
  });

  it("keep SCIM's own parameters working", async () => {
    const list = await scim.call(
      'GET',
      `/Users?filter=${encodeURIComponent('userName sw "query"')}&startIndex=1&count=5&sortBy=userName&sortOrder=descending&attributes=userName`,
    );
    expect(list.status).toBe(200);
    expect(list.body.Resources).toEqual([
      { schemas: [userSchema], id: scimUserId, userName: 'query-test@example.com' },
    ]);
    const group = await scim.call('GET', `/Groups/${scimGroupId}?excludedAttributes=members`);
    expect(group.status).toBe(200);
    expect(group.body.displayName).toBe('query test');
  });

  it('leave the data API, the API reference and public pages to read their own parameters', async () => {
    const token = await tokenFor(server, server.demoDeploymentId);
    const query = encodeURIComponent(JSON.stringify({ measures: ['orders.count'] }));
    const load = await server.app.inject({
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load?query=${query}&queryType=multi`,
      headers: { authorization: token },
    });
    expect(load.statusCode).toBe(200);
    // queryType=multi was read: the answer is Cube's multi shape with results[].
    expect(load.json().results).toHaveLength(1);
    const meta = await server.app.inject({
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/meta?extended`,
      headers: { authorization: token },
    });
    expect(meta.statusCode).toBe(200);
    for (const url of ['/api/openapi.json?v=2', '/api/docs/?v=2', '/healthz?probe=1']) {
      expect({ url, status: (await server.app.inject(url)).statusCode }).toEqual({ url, status: 200 });
    }
  });
});
