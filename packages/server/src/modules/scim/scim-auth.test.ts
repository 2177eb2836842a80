import Schema from 'typebox/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { scimClient } from '../../../test/scim-client.ts';

const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM authentication, media type and errors', () => {
  let server: TestServer;
  let scim: Awaited<ReturnType<typeof scimClient>>;
  beforeAll(async () => {
    server = await startTestServer();
    scim = await scimClient(server);
  });
  afterAll(() => server?.close());

  const get = (authorization?: string) =>
    server.app.inject({
      method: 'GET',
      url: '/api/scim/v2/Users',
      headers: authorization === undefined ? {} : { authorization },
    });

  it('answers 401 in the SCIM error schema without a credential or with a malformed one', async () => {
    for (const header of [undefined, 'Bearer nope', `Basic ${scim.token}`]) {
      const res = await get(header);
      expect(res.statusCode, String(header)).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(res.json()).toMatchObject({ schemas: [errorSchema], status: '401' });
    }
  });

  it('answers 403 to an API key of a non-admin and to a deployment-scoped admin key', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const res = await get(`Bearer ${viewer.key}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ schemas: [errorSchema], status: '403' });
    const scoped = await userWithKey(server, 'admin', { deploymentIds: [server.demoDeploymentId] });
    expect((await get(`Bearer ${scoped.key}`)).statusCode).toBe(403);
  });

  it('accepts the SCIM token as Bearer and as Api-Key, and an unscoped admin API key', async () => {
    expect((await get(`Bearer ${scim.token}`)).statusCode).toBe(200);
    expect((await get(`Api-Key ${scim.token}`)).statusCode).toBe(200);
    expect((await get(`Bearer ${server.adminKey}`)).statusCode).toBe(200);
  });

  it('does not let a SCIM token call the management API', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(scim.token) });
    expect(res.statusCode).toBe(403);
  });

  it('answers application/scim+json and accepts plain JSON bodies', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/scim/v2/Users',
      headers: { ...bearer(scim.token), 'content-type': 'application/json' },
      payload: JSON.stringify({ userName: 'plain-json@example.com' }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
  });

  it('answers malformed JSON with 400 invalidSyntax and unknown paths with a SCIM 404', async () => {
    const bad = await scim.call('POST', '/Users', '{"userName": tru');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ schemas: [errorSchema], status: '400', scimType: 'invalidSyntax' });
    const missing = await scim.call('GET', '/Nothing');
    expect(missing.status).toBe(404);
    expect(missing.body.schemas).toEqual([errorSchema]);
    expect((await scim.call('GET', '/Users/abc')).status).toBe(404);
    expect((await scim.call('GET', '/Users/999999')).body).toMatchObject({ status: '404' });
  });

  it('serves the discovery endpoints (RFC 7644 section 4)', async () => {
    const spc = await scim.call('GET', '/ServiceProviderConfig');
    expect(spc.body).toMatchObject({
      patch: { supported: true },
      etag: { supported: true },
      filter: { supported: true, maxResults: 1000 },
    });
    const types = await scim.call('GET', '/ResourceTypes');
    expect(types.body.Resources.map((r: { endpoint: string }) => r.endpoint)).toEqual(['/Users', '/Groups']);
    expect((await scim.call('GET', '/ResourceTypes/Group')).body.schema).toBe(
      'urn:ietf:params:scim:schemas:core:2.0:Group',
    );
    const schemas = await scim.call('GET', '/Schemas');
    expect(schemas.body.totalResults).toBe(3);
    const user = await scim.call('GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:User');
    expect(user.body.description).toBe('User Account');
    expect(user.body.attributes.find((a: { name: string }) => a.name === 'userName')).toMatchObject({
      required: true,
      uniqueness: 'server',
      caseExact: false,
    });
    expect((await scim.call('GET', '/Schemas/urn:nope')).status).toBe(404);
  });

  it('documents the SCIM routes in the OpenAPI document under the SCIM tag, without the lower-case aliases', () => {
    const doc = server.app.swagger() as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/scim/v2'));
    expect(paths).toContain('/api/scim/v2/Users/{id}');
    expect(paths).toContain('/api/scim/v2/.search');
    expect(paths.some((p) => p.includes('/users'))).toBe(false);
    expect(doc.paths['/api/scim/v2/Groups'].post.tags).toEqual(['SCIM']);
  });

  it("documents each operation's 401 as it is sent: the media type and the body schema", async () => {
    type Media = Record<string, { schema: object }>;
    const doc = (await server.app.inject('/api/openapi.json')).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Media }> }>>;
      components?: { schemas?: Record<string, object> };
    };
    // `#/components/schemas/X` references, resolved in place so that the schema can be checked alone.
    const resolve = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(resolve);
      if (typeof node !== 'object' || node === null) return node;
      const { $ref, ...rest } = node as { $ref?: string };
      if ($ref) return resolve(doc.components?.schemas?.[$ref.replace('#/components/schemas/', '')]);
      return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, resolve(v)]));
    };
    const operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/scim/v2/'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
    expect(operations.length).toBeGreaterThan(10);
    for (const { path, method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      const res = await server.app.inject({
        method: method.toUpperCase() as 'GET',
        url: path.replace('{id}', 'User'),
      });
      expect(res.statusCode, where).toBe(401);
      const sent = String(res.headers['content-type']).split(';')[0].trim();
      const documented = op.responses['401']?.content ?? {};
      expect(Object.keys(documented), where).toEqual([sent]);
      expect(Schema.Check(resolve(documented[sent].schema) as never, res.json()), where).toBe(true);
    }
  });
});
