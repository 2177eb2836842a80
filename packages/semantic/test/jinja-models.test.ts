import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileModel,
  compileModelAsync,
  compileQuery,
  type Model,
  type ModelFile,
} from '../src/index.ts';
import { postgresAvailable, runQuery } from './engines.ts';
import { closeEngines, type Engines, openShopEngines, readShopFiles } from './shop-project.ts';

const pgUp = await postgresAvailable();
const shopFiles = readShopFiles('jinja');
const options = { javascript: { compileContext: { schema: 'public' } } };

/**
 * YAML models with Jinja templates (loops generating cubes and members, macros imported from
 * another file, `{{ }}` expressions, COMPILE_CONTEXT), rendered by nunjucks in the sandbox; the
 * numbers are worked out by hand from test/fixtures/data.ts. Cube's Python helpers
 * (`model/globals.py`) are out of reach and refused by name.
 */
describe('a project of Jinja YAML models', () => {
  let model: Model;
  let engines: Engines = {};
  beforeAll(async () => {
    const compiled = await compileModelAsync(shopFiles, options);
    expect(compiled.errors).toEqual([]);
    model = compiled.model;
    engines = await openShopEngines(pgUp);
  });
  afterAll(() => closeEngines(engines));

  it('generates cubes and members from loops and macros', () => {
    expect([...model.cubes.keys()].sort()).toEqual(['customers', 'orders', 'products']);
    const orders = model.cubes.get('orders')!;
    expect([...orders.measures.keys()]).toEqual([
      'count',
      'completed_count',
      'pending_count',
      'cancelled_count',
      'revenue',
    ]);
    expect(orders.sqlTable).toBe('public.orders');
    expect(orders.primaryKeys.map((d) => d.name)).toEqual(['id']);
    expect(model.cubes.get('products')!.dimensions.has('category')).toBe(true);
  });

  it('needs rendering: the synchronous compiler says so instead of reading templates as YAML', () => {
    const { errors } = compileModel(shopFiles);
    expect(errors.map((e) => [e.file, e.message])).toEqual([
      ['model/dimensions.yml.jinja', 'Jinja templates are rendered by compileModelAsync'],
      ['model/orders.yml', 'Jinja templates are rendered by compileModelAsync'],
    ]);
  });

  const cases: [string, CubeQuery, Record<string, unknown>[]][] = [
    [
      'measures from a loop and a macro, by a dimension of a generated cube',
      {
        measures: [
          'orders.count',
          'orders.completed_count',
          'orders.pending_count',
          'orders.cancelled_count',
          'orders.revenue',
        ],
        dimensions: ['customers.country'],
        order: { 'customers.country': 'asc' },
      },
      [
        { 'customers.country': 'DE', c: 2, done: 2, pending: 0, cancelled: 0, revenue: 280 },
        { 'customers.country': 'FR', c: 2, done: 1, pending: 1, cancelled: 0, revenue: 160.25 },
        { 'customers.country': 'US', c: 4, done: 2, pending: 1, cancelled: 1, revenue: 325.75 },
      ].map(({ c, done, pending, cancelled, revenue, ...rest }) => ({
        ...rest,
        'orders.count': c,
        'orders.completed_count': done,
        'orders.pending_count': pending,
        'orders.cancelled_count': cancelled,
        'orders.revenue': revenue,
      })),
    ],
    [
      'a generated cube on its own',
      {
        measures: ['products.count'],
        dimensions: ['products.category'],
        order: { 'products.category': 'asc' },
      },
      [
        { 'products.category': 'MEDIA', 'products.count': 1 },
        { 'products.category': 'TOOLS', 'products.count': 2 },
      ],
    ],
  ];
  for (const [name, query, expected] of cases) {
    for (const dialect of ['duckdb', 'postgres'] as const) {
      it.skipIf(dialect === 'postgres' && !pgUp)(`${name} (${dialect})`, async () => {
        const rows = await runQuery(
          engines[dialect]!,
          compileQuery(model, query, { dialect, securityContext: {} }),
        );
        const keys = Object.keys(expected[0]);
        expect(
          rows.map((r) =>
            Object.fromEntries(
              keys.map((k) => [k, typeof expected[0][k] === 'number' ? Number(r[k]) : r[k]]),
            ),
          ),
        ).toEqual(expected);
      });
    }
  }
});

describe('Jinja templates in the sandbox', () => {
  it('refuses Python helpers, escapes, endless loops and syntax errors with file and line', async () => {
    const files: ModelFile[] = [
      { path: 'model/good.yml', content: 'cubes:\n  - name: good\n    sql_table: {{ "orders" }}\n' },
      {
        path: 'model/helper.yml',
        content: 'cubes:\n  - name: h\n    sql_table: {{ schema_of("orders") }}\n',
      },
      {
        path: 'model/escape.yml',
        content: 'cubes:\n  - name: e\n    sql_table: "{{ range.constructor(\'return process.env\')() }}"\n',
      },
      {
        path: 'model/spin.yml',
        content: '{% for i in range(0, 100000) %}{% for j in range(0, 100000) %}{% endfor %}{% endfor %}',
      },
      { path: 'model/hoard.yml', content: '{% for i in range(0, 1000000000) %}{{ i }}{% endfor %}' },
      { path: 'model/syntax.yml', content: 'cubes:\n\n{% if %}\n' },
    ];
    const { model, errors } = await compileModelAsync(files);
    expect([...model.cubes.keys()]).toEqual(['good']);
    expect(errors.map((e) => [e.file, e.line, e.message])).toEqual([
      [
        'model/helper.yml',
        3,
        expect.stringMatching(
          /^Jinja: Unable to call `schema_of`.*Python helpers from globals\.py are not supported/,
        ),
      ],
      ['model/escape.yml', 3, expect.stringMatching(/^Jinja: .*process is not defined/)],
      ['model/spin.yml', null, 'Jinja: rendering took longer than 1000 ms'],
      // nunjucks builds the range item by item: on a loaded machine the clock may run out first
      [
        'model/hoard.yml',
        null,
        expect.stringMatching(
          /^Jinja: (Evaluation used more than 64 MB of memory|rendering took longer than 1000 ms)$/,
        ),
      ],
      ['model/syntax.yml', 3, expect.stringMatching(/^Jinja: /)],
    ]);
  });
});
