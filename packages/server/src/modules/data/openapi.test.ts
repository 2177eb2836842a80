import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Operation = {
  security?: Record<string, unknown>[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};

/** The data API in the OpenAPI document, and its request validation answering in Cube's shape. */
describe('data API routes in the OpenAPI document', () => {
  let server: TestServer;
  let token: string;
  let doc: {
    paths: Record<string, Record<string, Operation>>;
    components: { securitySchemes: Record<string, unknown> };
  };
  const base = () => `/data/${server.demoDeploymentId}/cubejs-api/v1`;
  beforeAll(async () => {
    server = await startTestServer();
    token = await tokenFor(server, server.demoDeploymentId);
    doc = (await server.app.inject('/api/openapi.json')).json();
  });
  afterAll(() => server?.close());

  it('describes load, meta, sql, dry-run and cubesql with the bare-token scheme and Cube error shapes', () => {
    const path = (op: string) => doc.paths[`/data/{deploymentId}/cubejs-api/v1/${op}`];
    expect(Object.keys(path('load')).sort()).toEqual(['get', 'post']);
    expect(Object.keys(path('meta'))).toEqual(['get']);
    for (const op of ['sql', 'dry-run', 'cubesql'])
      expect(Object.keys(path(op)).sort()).toEqual(['get', 'post']);
    expect(doc.components.securitySchemes.dataApiToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    for (const op of ['load', 'meta', 'sql', 'dry-run', 'cubesql']) {
      for (const operation of Object.values(path(op))) {
        expect(operation.security).toEqual([{ dataApiToken: [] }]);
        expect(Object.keys(operation.responses).sort()).toEqual([
          '200',
          '400',
          '403',
          '404',
          '413',
          '500',
          '503',
          '504',
        ]);
        expect(JSON.stringify(operation.responses['403'])).toContain('"error"');
        expect(JSON.stringify(operation.responses['403'])).not.toContain('problem');
      }
    }
    // Field names as the reference's V1LoadRequest / V1LoadResponse / cubesql answer.
    const load = path('load');
    expect(Object.keys(load.post.requestBody!.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['query', 'queryType']),
    );
    expect(load.get.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['query:query', 'path:deploymentId', 'header:x-tessera-branch']),
    );
    const ok = JSON.stringify(load.post.responses['200']);
    for (const field of ['results', 'annotation', 'data', 'lastRefreshTime', 'pivotQuery', 'Continue wait'])
      expect(ok).toContain(`"${field}"`);
    expect(JSON.stringify(load.post.responses['400'])).toContain('"UserError"');
    const ndjson = path('cubesql').post.responses['200'].content!['application/x-ndjson'];
    expect(JSON.stringify(ndjson.schema)).toMatch(/"schema".*"column_type".*"data".*"error"/s);
  });

  it('answers schema violations with a 400 UserError naming the field, after the deployment and token', async () => {
    const post = (url: string, payload: unknown, authorization = token) =>
      server.app.inject({ method: 'POST', url, headers: { authorization }, payload: payload as object });
    const cases: [string, unknown, RegExp][] = [
      ['load', { query: 5 }, /: body\/query must be object or array or string$/],
      ['load', { query: { measures: 'orders.count' } }, /body\/query\/measures must be array/],
      ['load', { query: [] }, /body\/query must not have fewer than 1 items/],
      ['sql', { queryType: 'multi' }, /body\/query is required/],
      ['cubesql', { query: 42 }, /body\/query must be string/],
    ];
    for (const [op, payload, message] of cases) {
      const res = await post(`${base()}/${op}`, payload);
      expect(res.statusCode, `${op} ${JSON.stringify(payload)}`).toBe(400);
      expect(res.json()).toEqual({ type: 'UserError', error: expect.stringMatching(message) });
    }
    const get = await server.app.inject({ url: `${base()}/cubesql`, headers: { authorization: token } });
    expect(get.json()).toEqual({
      type: 'UserError',
      error: expect.stringMatching(/: querystring\/query is required$/),
    });
    // A caller without a valid token, or of an unknown deployment, learns nothing about the format.
    expect((await post(`${base()}/load`, { query: 5 }, 'nope')).statusCode).toBe(403);
    expect((await post('/data/999999/cubejs-api/v1/load', { query: 5 })).statusCode).toBe(404);
    const malformed = await server.app.inject({
      method: 'POST',
      url: `${base()}/load`,
      headers: { authorization: token, 'content-type': 'application/json' },
      payload: '{"query": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toEqual(expect.any(String));
    const huge = await post(`${base()}/load`, { query: { measures: ['x'.repeat(server.config.bodyLimit)] } });
    expect(huge.statusCode).toBe(413);
    expect(Object.keys(huge.json())).toEqual(['error']);
  });

  it('serves a custom base path through the wildcard and not under the default one', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: { name: 'custom path', basePath: '/analytics' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id as number;
    const own = await tokenFor(server, id);
    const meta = (url: string) => server.app.inject({ url, headers: { authorization: own } });
    const custom = await meta(`/data/${id}/analytics/v1/meta`);
    expect(custom.statusCode, custom.body).toBe(200);
    expect(custom.json()).toEqual({ cubes: [] });
    const documented = await meta(`/data/${id}/cubejs-api/v1/meta`);
    expect(documented.statusCode).toBe(404);
    expect(Object.keys(documented.json())).toEqual(['error']);
  });
  it('declares every field /v1/meta answers, hierarchies and nested view folders included', async () => {
    const put = await server.app.inject({
      method: 'PUT',
      url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/files`,
      headers: bearer(server.adminKey),
      payload: { branchName: 'meta-shapes', files: [{ path: 'model/shapes.yml', content: shapesModel }] },
    });
    expect(put.statusCode, put.body).toBe(200);
    const branchToken = await tokenFor(server, server.demoDeploymentId, { branch: 'meta-shapes' });
    const res = await server.app.inject({ url: `${base()}/meta`, headers: { authorization: branchToken } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    // The answer holds each shape: a cube hierarchy, a view one with aliasMember, a folder in a folder.
    const view = body.cubes.find((c: { name: string }) => c.name === 's_sales');
    expect(view.hierarchies[0].aliasMember).toBe('s_orders.timeline');
    expect(view.nestedFolders[0].members).toContainEqual({ name: 'When', members: ['s_sales.created_at'] });

    const components = (doc as unknown as { components: { schemas: Record<string, JsonSchema> } }).components
      .schemas;
    const schema = doc.paths['/data/{deploymentId}/cubejs-api/v1/meta'].get.responses['200'].content![
      'application/json'
    ].schema as JsonSchema;
    const problems: string[] = [];
    conform(body, schema, '', components, problems);
    // The model constructs' fields, and everything inside them, as documented. (Other member and
    // cube fields, such as isVisible or drillMembers, pass undeclared through additionalProperties.)
    const constructs = /\/(hierarchies|folders|nestedFolders)(\/|:)/;
    expect(problems.filter((p) => constructs.test(p))).toEqual([]);
  });
});

/** A model with a cube hierarchy, a view that includes it, and a view folder inside a folder. */
const shapesModel = `cubes:
  - name: s_orders
    sql_table: orders
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
    hierarchies:
      - name: timeline
        title: Timeline
        levels: [status, created_at]
views:
  - name: s_sales
    cubes:
      - join_path: s_orders
        includes: [count, status, created_at, timeline]
    folders:
      - name: Main
        includes: [count, status, { name: When, includes: [created_at] }]
`;

interface JsonSchema {
  type?: string;
  $ref?: string;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

/**
 * Where `value` departs from `schema` as documented: a field no `properties` lists, a required one
 * missing, or a value of another type; `$ref` into the components and `anyOf` followed.
 */
function conform(
  value: unknown,
  schema: JsonSchema,
  at: string,
  components: Record<string, JsonSchema>,
  problems: string[],
): void {
  if (schema.$ref) {
    const target = components[schema.$ref.replace('#/components/schemas/', '')];
    if (!target) problems.push(`${at}: unresolved ${schema.$ref}`);
    else conform(value, target, at, components, problems);
    return;
  }
  if (schema.anyOf) {
    const fits = schema.anyOf.find((option) => {
      const inner: string[] = [];
      conform(value, option, at, components, inner);
      return inner.length === 0;
    });
    if (!fits) problems.push(`${at}: matches none of anyOf`);
    return;
  }
  const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (schema.type && schema.type !== kind && !(schema.type === 'integer' && kind === 'number')) {
    problems.push(`${at}: ${kind}, documented ${schema.type}`);
    return;
  }
  if (kind === 'array' && schema.items)
    for (const [i, v] of (value as unknown[]).entries())
      conform(v, schema.items!, `${at}/${i}`, components, problems);
  if (kind === 'object' && schema.properties) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) problems.push(`${at}/${key}: missing`);
    for (const [key, v] of Object.entries(record)) {
      const property = schema.properties[key];
      if (!property) problems.push(`${at}/${key}: not documented`);
      else conform(v, property, `${at}/${key}`, components, problems);
    }
  }
}
