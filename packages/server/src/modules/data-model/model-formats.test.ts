import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { client, listen, tokenFor } from '../data/test-support.ts';
import { newDeployment } from '../workspace/test-client.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** The sample's orders and customers written as Cube JavaScript models. */
const orders = `cube(\`orders\`, {
  sql_table: \`orders\`,

  joins: {
    customers: {
      sql: \`\${CUBE}.customer_id = \${customers.id}\`,
      relationship: \`belongsTo\`,
    },
  },

  measures: {
    count: { type: \`count\`, drillMembers: [id, status] },
    total_amount: { sql: \`amount\`, type: \`sum\` },
    completed_count: { type: \`count\`, filters: [{ sql: \`\${CUBE}.status = 'completed'\` }] },
    completed_ratio: { sql: \`1.0 * \${completed_count} / NULLIF(\${count}, 0)\`, type: \`number\` },
  },

  dimensions: {
    id: { sql: \`id\`, type: \`number\`, primaryKey: true },
    status: { sql: \`status\`, type: \`string\` },
    created_at: { sql: \`created_at\`, type: \`time\` },
  },
});
`;
const customers = `cube(\`customers\`, {
  sql: \`SELECT * FROM customers\`,
  measures: { count: { type: \`count\` } },
  dimensions: {
    id: { sql: \`id\`, type: \`number\`, primaryKey: true },
    country: { sql: () => \`\${CUBE}.country\`, type: \`string\` },
  },
});
`;
const evil = `// reads the server's environment\ncube('stolen', { sql_table: process.env.TESSERA_SECRET_KEY });\n`;

/**
 * Projects of JavaScript models and of Jinja YAML deployed through the management API answer as
 * the YAML sample does; a JavaScript file that reaches for the host is refused at upload with its
 * file and line, and nothing is stored.
 */
describe('JavaScript and Jinja models through the API', () => {
  let server: TestServer;
  let deploymentId: number;
  let baseUrl: string;
  const build = (id: number) => `/build/api/v1/deployments/${id}`;
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });
  const fileNames = async () =>
    (await call('GET', `${build(deploymentId)}/data-model/files`))
      .json()
      .items.map((f: { fileName: string }) => f.fileName);

  beforeAll(async () => {
    server = await startTestServer();
    baseUrl = await listen(server);
    deploymentId = await newDeployment(server, 'javascript');
  });
  afterAll(() => server?.close());

  it('deploys a JavaScript project that answers like the YAML sample', async () => {
    const put = await call('PUT', `${build(deploymentId)}/data-model/files`, {
      files: [
        { path: 'model/orders.js', content: orders },
        { path: 'model/customers.js', content: customers },
      ],
    });
    expect(put.statusCode, put.body).toBe(200);
    const validated = (await call('GET', `${build(deploymentId)}/data-model/validate`)).json();
    expect(validated).toMatchObject({ valid: true, cubesCount: 2, errors: [] });

    const query = {
      measures: ['orders.count', 'orders.total_amount', 'orders.completed_ratio'],
      dimensions: ['customers.country'],
      order: { 'customers.country': 'asc' as const },
    };
    const js = client(baseUrl, deploymentId, await tokenFor(server, deploymentId));
    const yaml = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId));
    const [a, b] = await Promise.all([js.load(query), yaml.load(query)]);
    expect(a.rawData().length).toBeGreaterThan(1);
    expect(a.rawData()).toEqual(b.rawData());
  });

  it('refuses a file that reaches for the host, naming file and line, and stores nothing', async () => {
    const before = await fileNames();
    const put = await call('PUT', `${build(deploymentId)}/data-model/files`, {
      files: [
        { path: 'model/fine.js', content: `cube('fine', { sql_table: 'orders' });` },
        { path: 'model/evil.js', content: evil },
      ],
    });
    expect(put.statusCode, put.body).toBe(400);
    expect(put.json().errors).toEqual([
      {
        field: 'body/files/1/content',
        message: expect.stringMatching(/^model\/evil\.js:2: process is not available/),
      },
    ]);
    expect(await fileNames()).toEqual(before);

    const started = (await call('POST', `${build(deploymentId)}/data-model/upload/start`, {})).json();
    const loop = await call('POST', `${build(deploymentId)}/data-model/upload/file`, {
      transaction: started.transaction.id,
      fileName: 'model/spin.js',
      file: 'for (;;) {}',
    });
    expect(loop.statusCode, loop.body).toBe(400);
    expect(loop.json().errors).toEqual([
      { field: 'body/file', message: expect.stringMatching(/^model\/spin\.js: Evaluation took longer than/) },
    ]);
    const escaped = await call('POST', `${build(deploymentId)}/data-model/upload/file`, {
      transaction: started.transaction.id,
      fileName: 'model/escape.js',
      file: "this.constructor.constructor('return process')().exit(1);",
    });
    expect(escaped.statusCode, escaped.body).toBe(400);
    expect(escaped.json().errors[0].message).toMatch(
      /^model\/escape\.js:1: Code generation from strings disallowed/,
    );
    expect(await fileNames()).toEqual(before);
  });

  it('deploys a Jinja YAML project that answers like the YAML sample', async () => {
    const jinja = `{%- set measures = {"count": "count", "total_amount": "sum"} -%}
cubes:
  - name: orders
    sql_table: orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers.id}"
    measures:
{%- for name, type in measures.items() %}
      - name: {{ name }}
        type: {{ type }}
{%- if type == "sum" %}
        sql: amount
{%- endif %}
{%- endfor %}
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
  - name: customers
    sql_table: customers
    dimensions:
{%- for name in ["id", "country"] %}
      - name: {{ name }}
        sql: {{ name }}
        type: {{ "number" if name == "id" else "string" }}
{%- if name == "id" %}
        primary_key: true
{%- endif %}
{%- endfor %}
`;
    const jinjaDeployment = await newDeployment(server, 'jinja');
    const put = await call('PUT', `${build(jinjaDeployment)}/data-model/files`, {
      files: [{ path: 'model/shop.yml', content: jinja }],
    });
    expect(put.statusCode, put.body).toBe(200);
    const query = {
      measures: ['orders.count', 'orders.total_amount'],
      dimensions: ['customers.country'],
      order: { 'customers.country': 'asc' as const },
    };
    const rendered = client(baseUrl, jinjaDeployment, await tokenFor(server, jinjaDeployment));
    const yaml = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId));
    const [a, b] = await Promise.all([rendered.load(query), yaml.load(query)]);
    expect(a.rawData().length).toBeGreaterThan(1);
    expect(a.rawData()).toEqual(b.rawData());
  });

  it('fills SECURITY_CONTEXT in model SQL from the token, as parameters', async () => {
    const id = await newDeployment(server, 'tenants');
    const model = `cubes:
  - name: orders
    sql: "SELECT * FROM orders WHERE {SECURITY_CONTEXT.status.filter('status')}"
    measures:
      - name: count
        type: count
`;
    const put = await call('PUT', `${build(id)}/data-model/files`, {
      files: [{ path: 'model/orders.yml', content: model }],
    });
    expect(put.statusCode, put.body).toBe(200);
    const count = async (securityContext: Record<string, unknown>) => {
      const api = client(baseUrl, id, await tokenFor(server, id, { securityContext }));
      return Number((await api.load({ measures: ['orders.count'] })).rawData()[0]['orders.count']);
    };
    const all = await count({});
    const completed = await count({ status: 'completed' });
    const none = await count({ status: "completed' OR '1'='1" });
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBeLessThan(all);
    expect(none).toBe(0);
  });

  it('reports a model error of a JavaScript file with its file and line', async () => {
    const put = await call('PUT', `${build(deploymentId)}/data-model/files`, {
      branchName: 'broken',
      files: [
        {
          path: 'model/orders.js',
          content: `cube('orders', {\n  sql_table: 'orders',\n  measures: {\n    total: { sql: \`\${nope}\`, type: 'sum' },\n  },\n});\n`,
        },
      ],
    });
    expect(put.statusCode, put.body).toBe(200);
    const validated = (
      await call('GET', `${build(deploymentId)}/data-model/validate?branchName=broken`)
    ).json();
    expect(validated).toMatchObject({
      valid: false,
      errors: [
        {
          fileName: 'model/orders.js',
          line: 4,
          message: expect.stringMatching(/^orders\.total: Unknown reference \{nope\}/),
        },
      ],
    });
  });
});
