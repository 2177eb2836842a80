import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorCode, errorCatalogue, errorCodes } from '../src/errors/catalogue.ts';
import { tokenFor } from '../src/modules/data/test-support.ts';
import { bearer, createKey, startTestServer, type TestServer, userWithKey } from './harness.ts';
import { scimClient } from './scim-client.ts';

interface Response {
  description: string;
  content?: Record<string, { schema: Schema }>;
}
interface Schema {
  $ref?: string;
  allOf?: Schema[];
  enum?: string[];
  properties?: Record<string, Schema>;
}
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { schemas: Record<string, Schema> };
};

/** The enum a documented error response narrows `field` (`code`, `scimType`) to. */
function documentedEnum(response: Response, field: string): string[] {
  const schema = Object.values(response.content ?? {})[0]?.schema;
  return (schema?.allOf ?? []).flatMap((part) => part.properties?.[field]?.enum ?? []);
}

const toPath = (route: string) => route.replace(/:(\w+)/g, '{$1}');

/** Every `.ts` file of the server's source but the catalogue and the tests. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('catalogue.ts') ? [file] : [];
  });
}

/**
 * The error catalogue (errors/catalogue.ts) against the OpenAPI document and the server: what the
 * document promises per operation is in the catalogue with the same status, every code is
 * documented and named by some code path, and sampled requests through each renderer (problem+json,
 * SCIM, Cube) answer a code their operation documents. Not asserted: that every catalogue code is
 * reachable by a request (about eighty service rules); the samples cover the framework, the
 * credential checks and each renderer, and the module tests cover the services' own codes.
 */
describe('error catalogue', () => {
  let server: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    server = await startTestServer({ bodyLimit: 4096 });
    doc = (await server.app.inject('/api/openapi.json')).json();
  });
  afterAll(() => server?.close());

  it('publishes the Problem schema with every catalogue code', () => {
    expect(doc.components.schemas.Problem.properties?.code.enum).toEqual(errorCodes);
    expect(doc.components.schemas.ScimError).toBeDefined();
  });

  it('documents on each operation only catalogue codes of the status they are listed under', () => {
    const wrong: string[] = [];
    for (const [p, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const code of documentedEnum(response, 'code')) {
            const entry = errorCatalogue[code as ErrorCode];
            if (entry?.status !== Number(status)) wrong.push(`${method} ${p} ${status}: ${code}`);
          }
          for (const scimType of documentedEnum(response, 'scimType')) {
            const ok = errorCodes.some((c) => {
              const e = errorCatalogue[c];
              return e.status === Number(status) && 'scimType' in e && e.scimType === scimType;
            });
            if (!ok) wrong.push(`${method} ${p} ${status}: scimType ${scimType}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('documents every catalogue code on some operation, or says why it cannot be', () => {
    const problemCodes = new Set<string>();
    const scimStatuses = new Set<number>();
    for (const [p, operations] of Object.entries(doc.paths))
      for (const operation of Object.values(operations))
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const c of documentedEnum(response, 'code')) problemCodes.add(c);
          if (p.startsWith('/api/scim/v2/') && Number(status) >= 400) scimStatuses.add(Number(status));
        }
    const undocumented = errorCodes.filter((code) => {
      const { on, status } = errorCatalogue[code];
      // Answered for a path no operation serves (checked by request below).
      if (on === 'unrouted') return false;
      // The data API documents Cube's `{error}` shapes, which carry no code.
      if (on === 'data') return false;
      // SCIM errors carry a `scimType`, not a code: their status must be documented.
      if (on === 'scim') return !scimStatuses.has(status);
      return !problemCodes.has(code);
    });
    expect(undocumented).toEqual([]);
  });

  it('has no code that no code path names', () => {
    const text = sources(path.join(import.meta.dirname, '../src'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(errorCodes.filter((code) => !text.includes(`'${code}'`))).toEqual([]);
  });

  it('answers sampled requests with a documented code, through each renderer', async () => {
    const admin = bearer(server.adminKey);
    const deploymentId = server.demoDeploymentId;
    const scoped = await createKey(server, { name: 'scoped', deploymentIds: [deploymentId] });
    const viewer = await userWithKey(server, 'viewer');
    const revoked = await createKey(server, { name: 'revoked' });
    await server.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${revoked.id}`, headers: admin });
    const scim = await scimClient(server);
    const otherId = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v1/deployments',
        headers: admin,
        payload: { name: 'o' },
      })
    ).json().id;
    await server.app.inject({
      method: 'POST',
      url: '/api/v1/groups',
      headers: admin,
      payload: { name: 'taken' },
    });

    const problemSamples: [ErrorCode, string, InjectOptions][] = [
      [
        'validation_failed',
        'POST /api/v1/groups',
        { method: 'POST', url: '/api/v1/groups', headers: admin, payload: { name: 5 } },
      ],
      ['validation_failed', 'GET /api/v1/users', { url: '/api/v1/users?x-unknown=1', headers: admin }],
      [
        'malformed_body',
        'POST /api/v1/groups',
        {
          method: 'POST',
          url: '/api/v1/groups',
          headers: { ...admin, 'content-type': 'application/json' },
          payload: '{"name":',
        },
      ],
      [
        'body_too_large',
        'POST /api/v1/groups',
        { method: 'POST', url: '/api/v1/groups', headers: admin, payload: { name: 'x'.repeat(5000) } },
      ],
      [
        'unsupported_media_type',
        'POST /api/v1/groups',
        {
          method: 'POST',
          url: '/api/v1/groups',
          headers: { ...admin, 'content-type': 'text/xml' },
          payload: '<group/>',
        },
      ],
      ['credential_missing', 'GET /api/v1/groups', { url: '/api/v1/groups' }],
      [
        'credential_malformed',
        'GET /api/v1/groups',
        { url: '/api/v1/groups', headers: { authorization: 'Basic abc' } },
      ],
      [
        'credential_invalid',
        'GET /api/v1/groups',
        { url: '/api/v1/groups', headers: bearer(`tsk_${'x'.repeat(43)}`) },
      ],
      ['credential_revoked', 'GET /api/v1/groups', { url: '/api/v1/groups', headers: bearer(revoked.key) }],
      [
        'credential_kind_not_allowed',
        'GET /api/v1/groups',
        { url: '/api/v1/groups', headers: bearer(scim.token) },
      ],
      [
        'insufficient_role',
        'POST /api/v1/groups',
        { method: 'POST', url: '/api/v1/groups', headers: bearer(viewer.key), payload: { name: 'v' } },
      ],
      [
        'deployment_scoped_credential',
        'GET /api/v1/groups',
        { url: '/api/v1/groups', headers: bearer(scoped.key) },
      ],
      [
        'deployment_out_of_scope',
        'GET /api/v1/deployments/:deploymentId',
        { url: `/api/v1/deployments/${otherId}`, headers: bearer(scoped.key) },
      ],
      ['user_not_found', 'GET /api/v1/users/:id', { url: '/api/v1/users/999999', headers: admin }],
      [
        'group_exists',
        'POST /api/v1/groups',
        { method: 'POST', url: '/api/v1/groups', headers: admin, payload: { name: 'taken' } },
      ],
    ];
    // Refused before a route is chosen (Fastify's frameworkErrors), still in the family's shape.
    problemSamples.push(
      ['bad_request', 'GET /api/v1/users/:id', { url: '/api/v1/users/%ZZ', headers: admin }],
      ['uri_too_long', 'GET /api/v1/users/:id', { url: `/api/v1/users/${'1'.repeat(150)}`, headers: admin }],
    );
    const failures: string[] = [];
    for (const [code, route, request] of problemSamples) {
      const res = await server.app.inject(request);
      const [method, url] = route.split(' ');
      const documented = doc.paths[toPath(url)]?.[method.toLowerCase()]?.responses[res.statusCode];
      const answered = res.json().code;
      if (answered !== code || !res.headers['content-type']?.toString().includes('application/problem+json'))
        failures.push(`${route}: expected ${code}, got ${res.statusCode} ${res.body.slice(0, 150)}`);
      else if (!documented || !documentedEnum(documented, 'code').includes(code))
        failures.push(`${route}: ${res.statusCode} ${code} is not documented`);
    }
    const unrouted = await server.app.inject({ url: '/api/v1/nothing-here', headers: admin });
    expect(unrouted.json()).toMatchObject({ status: 404, code: 'route_not_found', title: 'No such route' });

    const user = await scim.user('catalogue@example.com');
    const scimSamples: [number, string | undefined, string, () => ReturnType<typeof scim.call>][] = [
      [
        400,
        'invalidFilter',
        'GET /api/scim/v2/Users',
        () => scim.call('GET', '/Users?filter=userName%20zz%20%22x%22'),
      ],
      [400, 'invalidValue', 'POST /api/scim/v2/Users', () => scim.call('POST', '/Users', { userName: 5 })],
      [400, 'invalidSyntax', 'POST /api/scim/v2/Users', () => scim.call('POST', '/Users', '{"userName":')],
      [404, undefined, 'GET /api/scim/v2/Users/:id', () => scim.call('GET', '/Users/999999')],
      [
        409,
        'uniqueness',
        'POST /api/scim/v2/Users',
        () => scim.call('POST', '/Users', { userName: 'catalogue@example.com' }),
      ],
      [
        412,
        undefined,
        'PUT /api/scim/v2/Users/:id',
        () =>
          scim.call(
            'PUT',
            `/Users/${user.id}`,
            { userName: 'catalogue@example.com' },
            { 'if-match': 'W/"stale"' },
          ),
      ],
      [400, undefined, 'GET /api/scim/v2/Users/:id', () => scim.call('GET', '/Users/%ZZ')],
      [
        413,
        'tooMany',
        'POST /api/scim/v2/Users',
        () => scim.call('POST', '/Users', { userName: 'x'.repeat(5000) }),
      ],
    ];
    for (const [status, scimType, route, call] of scimSamples) {
      const res = await call();
      const [method, url] = route.split(' ');
      const body = res.body ?? {};
      if (
        res.status !== status ||
        body.scimType !== scimType ||
        body.schemas?.[0] !== 'urn:ietf:params:scim:api:messages:2.0:Error'
      )
        failures.push(`${route}: expected ${status} ${scimType}, got ${res.status} ${JSON.stringify(body)}`);
      else if (!doc.paths[toPath(url)]?.[method.toLowerCase()]?.responses[status])
        failures.push(`${route}: ${status} is not documented`);
    }

    const load = `/data/${deploymentId}/cubejs-api/v1/load`;
    const token = await tokenFor(server, deploymentId);
    const cubeSamples: [number, unknown, InjectOptions][] = [
      [403, { error: expect.any(String) }, { url: `${load}?query={}` }],
      [
        400,
        { type: 'UserError', error: expect.stringContaining('orders.nope') },
        {
          url: `${load}?query=${encodeURIComponent('{"measures":["orders.nope"]}')}`,
          headers: { authorization: token },
        },
      ],
      [
        400,
        { type: 'UserError', error: expect.any(String) },
        {
          method: 'POST',
          url: load,
          headers: { authorization: token, 'content-type': 'application/json' },
          payload: '{"query":',
        },
      ],
      [
        404,
        { error: expect.any(String) },
        { url: '/data/999999/cubejs-api/v1/load', headers: { authorization: token } },
      ],
      [400, { type: 'UserError', error: expect.any(String) }, { url: '/data/%ZZ/cubejs-api/v1/load' }],
    ];
    for (const [status, body, request] of cubeSamples) {
      const res = await server.app.inject(request);
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body });
    }
    expect(failures).toEqual([]);
  });
});
