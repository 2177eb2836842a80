import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenFor } from '../src/modules/data/test-support.ts';
import { bearer, startTestServer, type TestServer } from './harness.ts';
import { type ScimResponse, scimClient } from './scim-client.ts';
import { storeChangedSince, storeMark } from './store-changes.ts';

/**
 * PostgreSQL (and so PGlite) cannot hold U+0000 in text or jsonb, and turns a lone UTF-16
 * surrogate into U+FFFD in text or refuses it in jsonb. Such a string anywhere in a request is
 * refused before any handler runs: 400 naming the field, nothing written, on every write.
 */
const nul = 'a\u0000b';
const loneSurrogate = 'a\ud800b';

type Family = 'problem' | 'scim';
interface WriteCase {
  /** A text field of the operation: `bad` is put in it. */
  text: (bad: string) => { payload: Record<string, unknown>; field: string };
  /** A free-form or nested JSON object of the operation, when it has one. */
  nested?: (bad: string, asKey: boolean) => { payload: Record<string, unknown>; field: string };
  method: 'POST' | 'PUT';
  url: () => string;
  family?: Family;
}

/** Statements each store refuses, with the SQLSTATE it raises. */
const storeRefusals = {
  '22021': sql`SELECT ${nul}::text`,
  '22P05': sql`SELECT ${JSON.stringify({ a: nul })}::jsonb`,
  '22P02': sql`SELECT ${JSON.stringify({ a: loneSurrogate })}::jsonb`,
};

const unique = () => Math.random().toString(36).slice(2, 10);
const keyed = (bad: string, asKey: boolean) => (asKey ? { [bad]: 'x' } : { colour: bad });

describe('text a store cannot hold', () => {
  let server: TestServer;
  let scim: Awaited<ReturnType<typeof scimClient>>;
  let deploymentId: number;
  let userId: number;
  let workbookId: number;
  const ws = () => `/api/v1/deployments/${deploymentId}`;

  beforeAll(async () => {
    server = await startTestServer({}, (app) => {
      // Routes that hand the store what the screening would have refused, as a bug could.
      for (const [name, statement] of Object.entries(storeRefusals))
        app.get(
          `/api/v1/test-store-refusal/${name}`,
          { config: { access: { role: 'viewer' } } },
          async () => {
            await statement.execute(server.store.db);
            return { stored: true };
          },
        );
    });
    scim = await scimClient(server);
    deploymentId = server.demoDeploymentId;
    const post = async (url: string, payload: Record<string, unknown>) => {
      const res = await server.app.inject({ method: 'POST', url, headers: bearer(server.adminKey), payload });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return res.json().id as number;
    };
    const email = `fixture-${unique()}@example.com`;
    userId = await post('/api/v1/users', { email, username: email });
    workbookId = await post(`${ws()}/workbooks`, { name: 'fixture workbook' });
  });
  afterAll(() => server?.close());

  const writes: Record<string, WriteCase> = {
    'create user': {
      method: 'POST',
      url: () => '/api/v1/users',
      text: (bad) => {
        const email = `u-${unique()}@example.com`;
        return { payload: { email, username: email, firstName: bad }, field: 'body/firstName' };
      },
    },
    'update user': {
      method: 'PUT',
      url: () => `/api/v1/users/${userId}`,
      text: (bad) => ({ payload: { lastName: bad }, field: 'body/lastName' }),
    },
    'create API key': {
      method: 'POST',
      url: () => '/api/v1/api-keys',
      text: (bad) => ({ payload: { name: bad }, field: 'body/name' }),
    },
    'create group': {
      method: 'POST',
      url: () => '/api/v1/groups',
      text: (bad) => ({ payload: { name: `g ${unique()}`, description: bad }, field: 'body/description' }),
    },
    'create deployment': {
      method: 'POST',
      url: () => '/api/v1/deployments',
      text: (bad) => ({ payload: { name: bad }, field: 'body/name' }),
      nested: (bad) => ({
        payload: { name: `d ${unique()}`, dataSource: { type: 'postgres', host: bad, database: 'db' } },
        field: 'body/dataSource/host',
      }),
    },
    'create folder': {
      method: 'POST',
      url: () => `${ws()}/folders`,
      text: (bad) => ({ payload: { name: bad }, field: 'body/name' }),
    },
    'create workbook': {
      method: 'POST',
      url: () => `${ws()}/workbooks`,
      text: (bad) => ({ payload: { name: bad }, field: 'body/name' }),
      nested: (bad, asKey) => ({
        payload: { name: `w ${unique()}`, meta: { layout: keyed(bad, asKey) } },
        field: asKey ? 'body/meta/layout' : 'body/meta/layout/colour',
      }),
    },
    'publish dashboard': {
      method: 'POST',
      url: () => `${ws()}/workbooks/${workbookId}/publish`,
      text: (bad) => ({
        payload: { workbookId, title: bad, config: { title: 'Board', widgets: [] } },
        field: 'body/title',
      }),
    },
    'create report': {
      method: 'POST',
      url: () => `${ws()}/reports`,
      text: (bad) => ({ payload: { name: `r ${unique()}`, sqlQuery: bad }, field: 'body/sqlQuery' }),
      nested: (bad, asKey) => ({
        payload: { name: `r ${unique()}`, meta: keyed(bad, asKey) },
        field: asKey ? 'body/meta' : 'body/meta/colour',
      }),
    },
    'update app config': {
      method: 'PUT',
      url: () => '/api/v1/app-config',
      text: (bad) => ({
        payload: { creatorMode: { workspaceTitle: bad } },
        field: 'body/creatorMode/workspaceTitle',
      }),
      nested: (bad, asKey) => ({
        payload: { appTheme: { palette: keyed(bad, asKey) } },
        field: asKey ? 'body/appTheme/palette' : 'body/appTheme/palette/colour',
      }),
    },
    'write data-model files': {
      method: 'PUT',
      url: () => `/build/api/v1/deployments/${deploymentId}/data-model/files`,
      text: (bad) => ({
        payload: { branchName: `b-${unique()}`, files: [{ path: 'model/x.yml', content: bad }] },
        field: 'body/files/0/content',
      }),
    },
    'issue data token': {
      method: 'POST',
      url: () => `${ws()}/token`,
      text: (bad) => ({
        payload: { securityContext: { sub: bad } },
        field: 'body/securityContext/sub',
      }),
      nested: (bad, asKey) => ({
        payload: { securityContext: { serviceCloud: { userAttributes: keyed(bad, asKey) } } },
        field: asKey
          ? 'body/securityContext/serviceCloud/userAttributes'
          : 'body/securityContext/serviceCloud/userAttributes/colour',
      }),
    },
    'create SCIM user': {
      method: 'POST',
      url: () => '/api/scim/v2/Users',
      family: 'scim',
      text: (bad) => ({
        payload: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `x${unique()}${bad}` },
        field: 'body/userName',
      }),
      nested: (bad, asKey) => ({
        payload: {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          userName: `u-${unique()}`,
          name: asKey ? { [bad]: 'x' } : { givenName: bad },
        },
        field: asKey ? 'body/name' : 'body/name/givenName',
      }),
    },
    'create SCIM group': {
      method: 'POST',
      url: () => '/api/scim/v2/Groups',
      family: 'scim',
      text: (bad) => ({ payload: { displayName: bad }, field: 'body/displayName' }),
      nested: (bad, asKey) => ({
        payload: {
          displayName: `g-${unique()}`,
          members: [asKey ? { value: String(userId), [bad]: 'x' } : { value: String(userId), display: bad }],
        },
        field: asKey ? 'body/members/0' : 'body/members/0/display',
      }),
    },
  };

  async function send(c: WriteCase, payload: Record<string, unknown>) {
    const headers =
      c.family === 'scim'
        ? { authorization: `Bearer ${scim.token}`, 'content-type': 'application/scim+json' }
        : { ...bearer(server.adminKey), 'content-type': 'application/json' };
    return server.app.inject({ method: c.method, url: c.url(), headers, payload: JSON.stringify(payload) });
  }

  /** The failures of one refused request, empty when it was answered as it should be. */
  function check(c: WriteCase, res: Awaited<ReturnType<typeof send>>, field: string): string[] {
    if (res.statusCode !== 400) return [`answered ${res.statusCode}: ${res.body.slice(0, 200)}`];
    if (c.family === 'scim') {
      const body = res.json() as ScimResponse['body'];
      const ok =
        body.schemas?.[0] === 'urn:ietf:params:scim:api:messages:2.0:Error' &&
        body.scimType === 'invalidValue' &&
        String(body.detail).includes(field);
      return ok ? [] : [`not a SCIM invalidValue naming ${field}: ${res.body}`];
    }
    const body = res.json();
    const named = (body.errors ?? []).some((e: { field: string }) => e.field === field);
    return String(res.headers['content-type']).includes('application/problem+json') &&
      body.code === 'validation_failed' &&
      named
      ? []
      : [`not a validation problem naming ${field}: ${res.body}`];
  }

  for (const [bad, label] of [
    [nul, 'NUL (U+0000)'],
    [loneSurrogate, 'a lone surrogate'],
  ] as const) {
    it(`refuses ${label} in a text field of every write, naming the field and writing nothing`, async () => {
      const failures: string[] = [];
      for (const [name, c] of Object.entries(writes)) {
        const before = await storeMark(server);
        const { payload, field } = c.text(bad);
        failures.push(...check(c, await send(c, payload), field).map((f) => `${name}: ${f}`));
        if ((await storeChangedSince(server, before)).length > 0) failures.push(`${name}: the store changed`);
      }
      expect(failures).toEqual([]);
    });

    it(`refuses ${label} in a nested JSON value or key, naming where it is and writing nothing`, async () => {
      const failures: string[] = [];
      for (const [name, c] of Object.entries(writes)) {
        for (const asKey of [false, true]) {
          const nested = c.nested?.(bad, asKey);
          if (!nested) continue;
          const before = await storeMark(server);
          const where = `${name} (${asKey ? 'key' : 'value'})`;
          failures.push(
            ...check(c, await send(c, nested.payload), nested.field).map((f) => `${where}: ${f}`),
          );
          if ((await storeChangedSince(server, before)).length > 0)
            failures.push(`${where}: the store changed`);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('still accepts control characters and characters beyond the BMP, which the store holds', async () => {
    const name = `tab\tbell\u0007 emoji \u{1F600} ${unique()}`;
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/groups',
      headers: bearer(server.adminKey),
      payload: { name, description: 'ok' },
    });
    expect(res.statusCode).toBe(200);
    const read = await server.app.inject({
      url: `/api/v1/groups/${res.json().id}`,
      headers: bearer(server.adminKey),
    });
    expect(read.json().name).toBe(name);
  });

  it('refuses a NUL in a query string, a path parameter or a header', async () => {
    const header = await server.app.inject({
      url: '/api/v1/users',
      headers: { ...bearer(server.adminKey), 'x-client-note': 'a\u0000b' },
    });
    expect(header.statusCode).toBe(400);
    expect(header.json().errors).toEqual([
      { field: 'headers/x-client-note', message: expect.stringContaining('U+0000') },
    ]);
    const search = await server.app.inject({
      url: `${ws()}/reports?search=a%00b`,
      headers: bearer(server.adminKey),
    });
    expect(search.statusCode).toBe(400);
    expect(search.json().errors).toEqual([
      { field: 'querystring/search', message: expect.stringContaining('U+0000') },
    ]);
    const byId = await scim.call('GET', '/Users/a%00b');
    expect(byId.status).toBe(400);
    expect(byId.body).toMatchObject({
      scimType: 'invalidValue',
      detail: expect.stringContaining('params/id'),
    });
    const filter = await scim.call('GET', `/Users?filter=${encodeURIComponent('userName eq "a\u0000b"')}`);
    expect(filter.status).toBe(400);
    expect(filter.body.detail).toContain('querystring/filter');
  });

  it("answers a NUL in a data-API query in Cube's {error} shape", async () => {
    const token = await tokenFor(server, deploymentId);
    const load = `/data/${deploymentId}/cubejs-api/v1/load`;
    const inBody = await server.app.inject({
      method: 'POST',
      url: load,
      headers: { authorization: token, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: { measures: ['orders.count\u0000'] } }),
    });
    expect(inBody.statusCode).toBe(400);
    expect(inBody.json()).toEqual({
      type: 'UserError',
      error: expect.stringContaining('body/query/measures/0'),
    });

    // The query string carries the query as JSON text, whose escape only becomes a NUL once parsed.
    const escaped = encodeURIComponent(JSON.stringify({ measures: ['orders.count\u0000'] }));
    const inQuery = await server.app.inject({
      url: `${load}?query=${escaped}`,
      headers: { authorization: token },
    });
    expect(inQuery.statusCode).toBe(400);
    expect(inQuery.json()).toEqual({ type: 'UserError', error: expect.any(String) });
  });

  it('answers 400, not 500, when the store itself refuses such text', async () => {
    for (const name of Object.keys(storeRefusals)) {
      const res = await server.app.inject({
        url: `/api/v1/test-store-refusal/${name}`,
        headers: bearer(server.adminKey),
      });
      expect({ name, status: res.statusCode, code: res.json().code }).toEqual({
        name,
        status: 400,
        code: 'unstorable_text',
      });
    }
  });

  it('answers 400, not 500, when a value is too long for a store index', async () => {
    const user = await scim.user(`long-${unique()}@example.com`);
    const before = await storeMark(server);
    const res = await scim.call('PUT', `/Users/${user.id}`, { userName: 'x'.repeat(900_000) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: '400', detail: expect.stringContaining('longer') });
    expect(await storeChangedSince(server, before)).toEqual([]);
  });
});
