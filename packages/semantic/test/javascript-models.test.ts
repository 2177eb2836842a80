import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CubeQuery, compileModelAsync, compileQuery, type Model } from '../src/index.ts';
import { postgresAvailable, runQuery } from './engines.ts';
import { closeEngines, type Engines, openShopEngines, readShopFiles } from './shop-project.ts';

const pgUp = await postgresAvailable();
const shopFiles = readShopFiles('javascript');

/**
 * JavaScript models (`cube()` / `view()` in .js files, Cube's other model syntax) load and
 * answer like their YAML twins, on DuckDB and PostgreSQL; the numbers are worked out by hand
 * from test/fixtures/data.ts.
 */
describe('a project of JavaScript models', () => {
  let model: Model;
  let engines: Engines = {};
  beforeAll(async () => {
    const compiled = await compileModelAsync(shopFiles);
    expect(compiled.errors).toEqual([]);
    model = compiled.model;
    engines = await openShopEngines(pgUp);
  });
  afterAll(() => closeEngines(engines));

  it('compiles references, drill members, loops and extends', () => {
    const orders = model.cubes.get('Orders')!;
    expect(orders.joins.get('Customers')!.sql).toEqual([
      { ref: 'cube', cube: 'Orders' },
      '.customer_id = ',
      { ref: 'cube', cube: 'Customers' },
      '.id',
    ]);
    expect(orders.measures.get('count')!.drillMembers).toEqual(['id', 'status', 'createdAt']);
    expect(orders.measures.get('completedShare')!.sql).toContainEqual({
      ref: 'member',
      cube: 'Orders',
      member: 'completedCount',
    });
    expect([...model.cubes.get('Products')!.measures.keys()]).toEqual(['toolsCount', 'mediaCount']);
    expect([...model.cubes.get('BigProducts')!.measures.keys()]).toEqual(['toolsCount', 'mediaCount']);
    expect(model.cubes.get('Customers')!.sqlTable).toBe('public.customers');
    expect([...model.views.get('sales')!.members.keys()]).toEqual([
      'LineItems_count',
      'LineItems_quantity',
      'LineItems_amount',
      'country',
    ]);
  });

  const cases: [string, CubeQuery, Record<string, unknown>[]][] = [
    [
      'counts, sums, a filtered count and a calculated measure by a joined dimension',
      {
        measures: ['Orders.count', 'Orders.revenue', 'Orders.completedCount', 'Orders.completedShare'],
        dimensions: ['Customers.country'],
        order: { 'Customers.country': 'asc' },
      },
      [row('DE', 2, 280, 2, 100), row('FR', 2, 160.25, 1, 50), row('US', 4, 325.75, 2, 50)],
    ],
    [
      'a measure whose sql is a function, by a dimension of a joined cube',
      {
        measures: ['LineItems.quantity', 'LineItems.amount'],
        dimensions: ['Products.category'],
        order: { 'Products.category': 'asc' },
      },
      [
        { 'Products.category': 'media', 'LineItems.quantity': '11', 'LineItems.amount': '79.75' },
        { 'Products.category': 'tools', 'LineItems.quantity': '11', 'LineItems.amount': '172.5' },
      ],
    ],
    [
      'a view over a join path',
      {
        measures: ['sales.LineItems_count', 'sales.LineItems_quantity'],
        dimensions: ['sales.country'],
        order: { 'sales.country': 'asc' },
      },
      [
        { 'sales.country': 'DE', 'sales.LineItems_count': '3', 'sales.LineItems_quantity': '6' },
        { 'sales.country': 'FR', 'sales.LineItems_count': '1', 'sales.LineItems_quantity': '1' },
        { 'sales.country': 'US', 'sales.LineItems_count': '6', 'sales.LineItems_quantity': '15' },
      ],
    ],
    [
      'measures generated in a loop, and an extended cube with its own segment',
      { measures: ['BigProducts.toolsCount', 'BigProducts.mediaCount'], segments: ['BigProducts.pricey'] },
      [{ 'BigProducts.toolsCount': '2', 'BigProducts.mediaCount': '0' }],
    ],
    [
      'a segment, and literal braces in SQL',
      { measures: ['Orders.count'], dimensions: ['Orders.statusJson'], segments: ['Orders.completed'] },
      [{ 'Orders.statusJson': '{"status": "completed"}', 'Orders.count': '5' }],
    ],
    [
      'a time dimension by month',
      {
        measures: ['Orders.count'],
        timeDimensions: [
          { dimension: 'Orders.createdAt', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
        ],
      },
      [
        { 'Orders.createdAt.month': '2024-01-01T00:00:00.000', 'Orders.count': '3' },
        { 'Orders.createdAt.month': '2024-02-01T00:00:00.000', 'Orders.count': '3' },
        { 'Orders.createdAt.month': '2024-03-01T00:00:00.000', 'Orders.count': '2' },
      ],
    ],
  ];
  for (const [name, query, expected] of cases) {
    for (const dialect of ['duckdb', 'postgres'] as const) {
      it.skipIf(dialect === 'postgres' && !pgUp)(`${name} (${dialect})`, async () => {
        const compiled = compileQuery(model, query, { dialect, securityContext: {} });
        const rows = await runQuery(engines[dialect]!, compiled);
        const keys = Object.keys(expected[0]);
        expect(rows.map((r) => numbers(Object.fromEntries(keys.map((k) => [k, r[k]]))))).toEqual(
          expected.map(numbers),
        );
      });
    }
  }
});

function row(country: string, count: number, revenue: number, completed: number, share: number) {
  return {
    'Customers.country': country,
    'Orders.count': String(count),
    'Orders.revenue': String(revenue),
    'Orders.completedCount': String(completed),
    'Orders.completedShare': String(share),
  };
}

/** Engines print doubles and numerics with different digits: compare the values. */
function numbers(r: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(r).map(([k, v]) => [
      k,
      typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(Number(v).toFixed(6)) : v,
    ]),
  );
}

const good = `cube('Good', { sql_table: 'orders', measures: { count: { type: 'count' } } });`;

/**
 * Model files run in a sandbox: no host objects, no code from strings, bounded time and memory.
 * Each malicious file is refused with its file and, where there is one, its line, and the good
 * file beside them still loads.
 */
describe('the JavaScript model sandbox', () => {
  const attempts: [string, string, RegExp, number | null][] = [
    ['env.js', `cube('Env', {\n  sql_table: process.env.HOME,\n});`, /process is not available/, 2],
    [
      'require.js',
      `const fs = require('fs');\ncube('Fs', { sql: fs.readFileSync('/etc/passwd') });`,
      /require is not available/,
      1,
    ],
    [
      'constructor.js',
      `// the classic escape from node:vm\nconst p = this.constructor.constructor('return process')();\ncube('Leak', { sql: p.env.HOME });`,
      /Code generation from strings disallowed/,
      2,
    ],
    [
      'cube-constructor.js',
      `const p = cube.constructor.constructor('return process')();\ncube('Leak2', { sql: p.env.HOME });`,
      /Code generation from strings disallowed/,
      1,
    ],
    ['fetch.js', `fetch('http://127.0.0.1/');`, /fetch is not available/, 1],
    ['loop.js', `while (true) {}`, /longer than 1000 ms/, null],
    ['lazy-loop.js', `cube('Lazy', { sql: () => { for (;;) {} } });`, /longer than 1000 ms/, null],
    [
      'microtask-loop.js',
      `Promise.resolve().then(function spin() { for (;;) {} });\ncube('Micro', { sql_table: 'x' });`,
      /longer than 1000 ms/,
      null,
    ],
    // one allocation past the heap: V8 aborts the process it happens in, which is not the server
    ['big-alloc.js', `const big = new Array(2e8).fill(0);`, /more than 64 MB/, null],
    // whichever bound it reaches first on a loaded machine
    [
      'memory.js',
      `const hoard = [];\nfor (;;) hoard.push(new Array(1e6).fill(0));`,
      /more than 64 MB|longer than 1000 ms/,
      null,
    ],
    ['syntax.js', `cube('Broken', {\n  sql: 'x'\n  measures: {}\n});`, /Syntax error/, 3],
    ['not-data.js', `cube('Dated', { sql: 'x', meta: { at: new Date(0) } });`, /only plain objects/, null],
  ];

  it('refuses each attempt with its file and line, and loads the good file beside them', async () => {
    const files = [
      { path: 'model/good.js', content: good },
      ...attempts.map(([f, content]) => ({ path: `model/${f}`, content })),
    ];
    const { model, errors } = await compileModelAsync(files);
    expect([...model.cubes.keys()]).toEqual(['Good']);
    for (const [file, , message, line] of attempts) {
      const found = errors.filter((e) => e.file === `model/${file}`);
      expect(found, file).toHaveLength(1);
      expect(found[0].message, file).toMatch(message);
      if (line !== null) expect(found[0].line, file).toBe(line);
    }
    expect(errors).toHaveLength(attempts.length);
  });

  it('gives stack frames no function of the host to call', async () => {
    const content = `
Error.prepareStackTrace = (_, frames) => frames;
const reached = new Error().stack
  .map((frame) => frame.getFunction && frame.getFunction())
  .filter(Boolean)
  .map((fn) => { try { return typeof fn.constructor('return process')(); } catch { return 'refused'; } });
cube('Frames', { sql_table: reached.every((r) => r === 'refused') ? 'safe' : 'leaked' });
`;
    const { model, errors } = await compileModelAsync([{ path: 'model/frames.js', content }]);
    expect(errors).toEqual([]);
    expect(model.cubes.get('Frames')!.sqlTable).toBe('safe');
  });

  it('imports nothing dynamically', async () => {
    const content = `import('node:fs').then((fs) => cube('Imported', { sql_table: String(fs.readFileSync) }));\ncube('Plain', { sql_table: 'x' });`;
    const { model } = await compileModelAsync([{ path: 'model/import.js', content }]);
    expect(model.cubes.has('Imported')).toBe(false);
  });

  it('reads COMPILE_CONTEXT, and refuses a key it does not have', async () => {
    const files = [
      { path: 'model/a.js', content: `cube('A', { sql_table: \`\${COMPILE_CONTEXT.schema}.orders\` });` },
      {
        path: 'model/b.js',
        content: `cube('B', {\n  sql_table: \`\${COMPILE_CONTEXT.securityContext.tenant}.orders\`,\n});`,
      },
    ];
    const { model, errors } = await compileModelAsync(files, {
      javascript: { compileContext: { schema: 'analytics', securityContext: {} } },
    });
    expect(model.cubes.get('A')!.sqlTable).toBe('analytics.orders');
    expect(errors).toEqual([
      expect.objectContaining({
        file: 'model/b.js',
        line: 2,
        message: expect.stringMatching(/COMPILE_CONTEXT.securityContext.tenant is not set/),
      }),
    ]);
  });

  it('names file, line and member for a model error inside a JavaScript file', async () => {
    const content = `cube('Orders', {\n  sql_table: 'orders',\n  dimensions: {\n    id: { sql: 'id', type: 'number', primaryKey: true },\n    buyer: {\n      sql: \`\${Customers.name}\`,\n      type: 'string',\n    },\n  },\n});`;
    const { errors } = await compileModelAsync([{ path: 'model/orders.js', content }]);
    expect(errors).toEqual([
      {
        file: 'model/orders.js',
        line: 5,
        cube: 'Orders',
        member: 'buyer',
        message: expect.stringMatching(/Unknown reference \{Customers.name\}/),
      },
    ]);
  });
});
