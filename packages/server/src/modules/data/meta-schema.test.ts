import Schema from 'typebox/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * `/v1/meta` answers exactly what the OpenAPI document (and so the typed client) declares: the
 * document's response schema is closed wherever Tessera builds the shape (meta-schemas.ts), and
 * a real answer of a model using every member feature must validate against it. A field added
 * to packages/semantic/src/meta/meta.ts without declaring it fails here.
 */
const files = [
  {
    path: 'model/every-feature.yml',
    content: `cubes:
  - name: f_customers
    sql_table: customers
    public: true
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
        public: true
      - name: country
        sql: country
        type: string
      - name: location
        type: geo
        latitude:
          sql: id
        longitude:
          sql: id
  - name: f_orders
    sql_table: orders
    title: Orders
    description: Every order
    meta:
      owner: sales
    joins:
      - name: f_customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {f_customers.id}"
    measures:
      - name: count
        type: count
        drill_members: [id, status, f_customers.country]
        meta:
          unit: orders
      - name: revenue
        type: sum
        sql: amount
        format: currency
        description: Sum of amounts
      - name: revenue_3d
        type: sum
        sql: amount
        rolling_window:
          trailing: 3 day
      - name: share
        type: number
        sql: "{revenue} / NULLIF({count}, 0)"
        format: percent
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
        format: id
      - name: amount
        sql: amount
        type: number
      - name: created_at
        sql: created_at
        type: time
        granularities:
          - name: fiscal_year
            interval: 1 year
            offset: 3 months
          - name: sprint
            title: Sprint
            interval: 2 weeks
            origin: "2024-01-01"
      - name: created_month
        sql: "{created_at.month}"
        type: time
    segments:
      - name: completed
        sql: "{CUBE}.status = 'completed'"
        description: Completed orders
    hierarchies:
      - name: timeline
        title: Timeline
        levels: [created_month, created_at]
views:
  - name: f_sales
    description: Sales by customer
    meta:
      audience: finance
    cubes:
      - join_path: f_orders
        includes: [count, revenue, status, created_at, created_month, completed, timeline]
      - join_path: f_orders.f_customers
        prefix: true
        includes: [country, location]
    folders:
      - name: Numbers
        includes: [count, revenue]
      - name: Detail
        includes: [status, { name: When, includes: [created_month, created_at] }]
`,
  },
];

type Json = Record<string, unknown>;
type MetaAnswer = {
  cubes: (Json & { name: string; measures: Json[]; dimensions: Json[]; segments: Json[] })[];
};

describe('/v1/meta against its declared response schema', () => {
  let server: TestServer;
  let token: string;
  let schema: Json;
  const meta = async (query = '') => {
    const res = await server.app.inject({
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/meta${query}`,
      headers: { authorization: token },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as MetaAnswer;
  };
  /** The answer's problems against the published document's schema, as `path: message`. */
  const problems = (answer: unknown) => {
    const [, errors] = Schema.Errors(schema, answer);
    return errors.map((e) => `${e.instancePath}: ${e.message}`);
  };

  beforeAll(async () => {
    server = await startTestServer();
    const put = await server.app.inject({
      method: 'PUT',
      url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/files`,
      headers: bearer(server.adminKey),
      payload: { branchName: 'every-feature', files },
    });
    expect(put.statusCode, put.body).toBe(200);
    token = await tokenFor(server, server.demoDeploymentId, { branch: 'every-feature' });
    const doc = (await server.app.inject('/api/openapi.json')).json();
    const ok = doc.paths['/data/{deploymentId}/cubejs-api/v1/meta'].get.responses['200'];
    // The document's own `#/components/schemas/...` references resolve against this root.
    schema = { ...ok.content['application/json'].schema, components: doc.components };
  });
  afterAll(() => server?.close());

  it('validates a model using every member feature, plain and extended', async () => {
    for (const query of ['', '?extended']) {
      const answer = await meta(query);
      const names = answer.cubes.map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining(['f_customers', 'f_orders', 'f_sales']));
      expect(problems(answer), query).toEqual([]);
    }
  });

  it('exercises each feature the schema describes, so the check above covers it', async () => {
    const answer = await meta('?extended');
    const cube = (name: string) => answer.cubes.find((c) => c.name === name)!;
    const orders = cube('f_orders');
    const sales = cube('f_sales');
    const measure = (c: Json & { measures: Json[] }, name: string) =>
      c.measures.find((m) => m.name === name)!;
    const dimension = (c: Json & { dimensions: Json[] }, name: string) =>
      c.dimensions.find((d) => d.name === name)!;
    expect(orders).toMatchObject({
      description: 'Every order',
      meta: { owner: 'sales' },
      connectedComponent: 1,
    });
    expect(orders.joins).toEqual([
      { name: 'f_customers', relationship: 'many_to_one', sql: '{f_orders}.customer_id = {f_customers.id}' },
    ]);
    expect(measure(orders, 'f_orders.count')).toMatchObject({
      aggType: 'count',
      drillMembers: ['f_orders.id', 'f_orders.status', 'f_customers.country'],
      meta: { unit: 'orders' },
    });
    expect(measure(orders, 'f_orders.revenue')).toMatchObject({
      format: 'currency',
      sql: '{f_orders}.amount',
    });
    expect(measure(orders, 'f_orders.revenue_3d')).toMatchObject({ cumulative: true });
    expect(dimension(orders, 'f_orders.created_at').granularities).toHaveLength(2);
    expect(dimension(cube('f_customers'), 'f_customers.location')).toMatchObject({ type: 'geo' });
    expect(dimension(cube('f_customers'), 'f_customers.id')).toMatchObject({ primaryKey: true });
    expect(orders.segments).toEqual([expect.objectContaining({ name: 'f_orders.completed' })]);
    expect(orders.hierarchies).toEqual([expect.objectContaining({ name: 'f_orders.timeline' })]);
    expect(sales).toMatchObject({ type: 'view', meta: { audience: 'finance' } });
    expect(measure(sales, 'f_sales.count')).toMatchObject({ aliasMember: 'f_orders.count' });
    expect(sales.segments).toEqual([expect.objectContaining({ aliasMember: 'f_orders.completed' })]);
    expect(sales.hierarchies).toEqual([expect.objectContaining({ aliasMember: 'f_orders.timeline' })]);
    expect(sales.nestedFolders).toEqual([
      { name: 'Numbers', members: ['f_sales.count', 'f_sales.revenue'] },
      {
        name: 'Detail',
        members: [
          'f_sales.status',
          { name: 'When', members: ['f_sales.created_month', 'f_sales.created_at'] },
        ],
      },
    ]);
  });

  it('refuses a field the schema does not declare, at every level Tessera builds', async () => {
    const answer = await meta('?extended');
    const sales = answer.cubes.find((c) => c.name === 'f_sales')!;
    const orders = answer.cubes.find((c) => c.name === 'f_orders')!;
    const withExtra = (edit: (copy: MetaAnswer) => Json): string[] => {
      const copy = structuredClone(answer);
      edit(copy).undeclared = 1;
      return problems(copy);
    };
    const at = (copy: MetaAnswer, name: string) => copy.cubes.find((c) => c.name === name)!;
    expect(withExtra((c) => c)).not.toEqual([]);
    expect(withExtra((c) => at(c, orders.name))).not.toEqual([]);
    expect(withExtra((c) => at(c, orders.name).measures[0])).not.toEqual([]);
    expect(withExtra((c) => at(c, orders.name).dimensions[0])).not.toEqual([]);
    expect(withExtra((c) => at(c, orders.name).segments[0])).not.toEqual([]);
    expect(withExtra((c) => (at(c, orders.name).hierarchies as Json[])[0])).not.toEqual([]);
    expect(withExtra((c) => (at(c, sales.name).folders as Json[])[0])).not.toEqual([]);
    expect(withExtra((c) => (at(c, sales.name).nestedFolders as Json[])[0])).not.toEqual([]);
    // What the model author writes stays free.
    expect(
      problems({
        ...answer,
        cubes: answer.cubes.map((c) =>
          c.name === orders.name ? { ...c, meta: { any: { thing: [1] } } } : c,
        ),
      }),
    ).toEqual([]);
  });
});
