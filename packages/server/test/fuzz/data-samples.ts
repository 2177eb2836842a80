import fc from 'fast-check';
import { tokenFor } from '../../src/modules/data/test-support.ts';
import type { TestServer } from '../harness.ts';
import type { Hints, JsonSchema } from './json-schema-arbitrary.ts';
import { validValue } from './json-schema-arbitrary.ts';

/** Members of the sample model (datasources/sample/model), and a few that do not exist. */
const measures = [
  'orders.count',
  'orders.total_amount',
  'orders.avg_amount',
  'orders.completed_ratio',
  'orders.unique_customers',
  'orders.rolling_amount_7d',
  'line_items.revenue',
  'customers.count',
  'products.avg_price',
  'sales.count',
  'orders.nope',
  'nope',
  'orders.status',
];
const dimensions = [
  'orders.status',
  'orders.amount',
  'orders.is_big',
  'orders.id',
  'customers.country',
  'customers.email',
  'products.category',
  'line_items.quantity',
  'orders.count',
  'orders.',
  '.x',
];
const timeDimensions = ['orders.created_at', 'customers.created_at', 'orders.status', 'orders.nope'];
const operators = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
  'in',
  'notIn',
  'gt',
  'gte',
  'lt',
  'lte',
  'set',
  'notSet',
  'inDateRange',
  'notInDateRange',
  'beforeDate',
  'beforeOrOnDate',
  'afterDate',
  'afterOrOnDate',
  'measureFilter',
  'like',
  '',
];

const sqlQueries = [
  'SELECT status, MEASURE(count) FROM orders GROUP BY 1',
  "SELECT MEASURE(count) FROM orders WHERE created_at > '2020-01-01'",
  "SELECT DATE_TRUNC('month', created_at) AS m, MEASURE(total_amount) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 3",
  'SELECT * FROM orders LIMIT 1',
  'SELECT 1/0',
  'SELECT nope FROM orders',
  'SELECT MEASURE(count) FROM nope',
  'DROP TABLE orders',
  'SELECT status FROM orders; SELECT 1',
  "SELECT '\u0001' AS x",
  'SELECT',
  'WITH RECURSIVE r AS (SELECT 1 n UNION ALL SELECT n + 1 FROM r) SELECT * FROM r',
  'SELECT MEASURE(count) FROM orders LIMIT 99999999999999999999',
  `SELECT ${'('.repeat(500)}1${')'.repeat(500)}`,
  'SELECT status, MEASURE(count) OVER () FROM orders GROUP BY 1',
];

export interface DataFixtures {
  token: string;
  deploymentId: number;
  sample(method: string, url: string): { url: string; payload?: unknown };
  hintsFor(method: string, url: string): Hints;
}

const sampleQuery = { measures: ['orders.count'], dimensions: ['orders.status'], limit: 5 };

/**
 * The data API's requests (Cube's REST API), a token minted as the admin with
 * `POST /api/v1/deployments/{id}/token`, and hints that make generated queries name members of
 * the sample model, so that most of them reach the planner and the engine.
 */
export async function dataFixtures(server: TestServer, querySchema: JsonSchema): Promise<DataFixtures> {
  const deploymentId = server.demoDeploymentId;
  const token = await tokenFor(server, deploymentId, { expiresIn: 86_400 });
  const base = `/data/${deploymentId}/cubejs-api/v1`;

  const member = (names: string[]) =>
    fc.oneof({ arbitrary: fc.constantFrom(...names), weight: 5 }, fc.string({ maxLength: 12 }));
  const dateText = fc.constantFrom(
    '2020-01-01',
    '2021-12-31T23:59:59',
    '2020-13-45',
    'yesterday',
    '',
    '9999-12-31',
    '0001-01-01',
    'not a date',
  );
  const hints: Hints = (path) => {
    const p = path.replace(/^\/query(\/\*)?/, '');
    if (/^\/measures\/\*$/.test(p)) return member(measures);
    if (/^\/(dimensions)\/\*$/.test(p)) return member(dimensions);
    if (/^\/segments\/\*$/.test(p)) return member(['orders.completed', 'orders.big', 'orders.nope']);
    if (/^\/timeDimensions\/\*\/dimension$/.test(p)) return member(timeDimensions);
    if (/^\/timeDimensions\/\*\/granularity$/.test(p))
      return fc.constantFrom(
        'second',
        'minute',
        'hour',
        'day',
        'week',
        'month',
        'quarter',
        'year',
        'fortnight',
        null,
      );
    if (/^\/timeDimensions\/\*\/dateRange$/.test(p))
      return fc.oneof(
        fc.constantFrom(
          'last 7 days',
          'this year',
          'from 3 days ago to now',
          'last 99999999 years',
          'garbage',
          null,
        ),
        fc.array(dateText, { minLength: 1, maxLength: 2 }),
      );
    if (/^\/filters\/\*\/(member|dimension)$/.test(p)) return member([...measures, ...dimensions]);
    if (/^\/filters\/\*\/operator$/.test(p)) return fc.constantFrom(...operators);
    if (/^\/filters\/\*\/values\/\*$/.test(p))
      return fc.oneof(dateText, fc.string({ maxLength: 8 }), fc.double(), fc.boolean(), fc.constant(null));
    if (/^\/order$/.test(p))
      return fc.oneof(
        fc.dictionary(member([...measures, ...dimensions]), fc.constantFrom('asc', 'desc', 'sideways'), {
          maxKeys: 2,
        }),
        fc.array(fc.tuple(member(dimensions), fc.constantFrom('asc', 'desc')), { maxLength: 2 }),
      );
    if (/^\/timezone$/.test(p))
      return fc.constantFrom(
        'UTC',
        'America/Los_Angeles',
        'Asia/Kathmandu',
        'Mars/Olympus',
        '+05:00',
        "'; --",
      );
    if (/^\/(limit|rowLimit)$/.test(p))
      return fc.constantFrom(1, 5, 0, -1, 50_000, 50_001, 2 ** 31, 1e20, null);
    if (/^\/offset$/.test(p)) return fc.constantFrom(0, 3, 2 ** 31, 2 ** 53, 1e20, null);
    return undefined;
  };
  // The GET forms carry the query as JSON text, and /cubesql carries SQL.
  const queryText = validValue(querySchema, '/query', hints).map((q) => JSON.stringify(q));
  const sqlText = fc.oneof(fc.constantFrom(...sqlQueries), fc.string({ maxLength: 40 }));
  const operationOf = (url: string) => url.split('/').at(-1) ?? '';
  const hintsFor =
    (method: string, url: string): Hints =>
    (path) => {
      if (path === '/query' && operationOf(url) === 'cubesql') return sqlText;
      if (path === '/query' && method === 'GET') return queryText;
      return hints(path);
    };

  function sample(method: string, url: string) {
    if (url.endsWith('/*'))
      return { url: `/data/${deploymentId}/cubejs-api/v2/nope`, payload: method === 'POST' ? {} : undefined };
    const operation = operationOf(url);
    const query = operation === 'cubesql' ? sqlQueries[0] : sampleQuery;
    if (operation === 'meta') return { url: `${base}/meta` };
    if (method === 'GET')
      return {
        url: `${base}/${operation}?query=${encodeURIComponent(typeof query === 'string' ? query : JSON.stringify(query))}`,
      };
    return { url: `${base}/${operation}`, payload: { query } };
  }
  return { token, deploymentId, sample, hintsFor };
}
