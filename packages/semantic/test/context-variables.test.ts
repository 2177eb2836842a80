import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileModel,
  compileModelOrThrow,
  compileQuery,
  type DialectName,
  type SecurityContext,
} from '../src/index.ts';
import { duckdbEngine, type Engine, postgresAvailable, postgresEngine, runQuery } from './engines.ts';

const pgUp = await postgresAvailable();

/** Context variables as Cube's YAML writes them, on the fixture data (test/fixtures/data.ts). */
const model = compileModelOrThrow([
  {
    path: 'model/orders.yml',
    content: `
cubes:
  - name: orders
    sql: >
      SELECT * FROM orders
      WHERE {SECURITY_CONTEXT.status.filter('status')}
        AND {FILTER_PARAMS.orders.created_at.filter('created_at')}
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
  - name: tenant_orders
    sql: "SELECT * FROM orders WHERE {SECURITY_CONTEXT.customer.requiredFilter('customer_id')}"
    measures:
      - name: count
        type: count
      - name: labelled
        type: count
        filters:
          - sql: "{CUBE}.status = {SECURITY_CONTEXT.label.unsafeValue()}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`,
  },
]);

describe('context variables in YAML models', () => {
  const engines: Partial<Record<DialectName, Engine>> = {};
  beforeAll(async () => {
    engines.duckdb = await duckdbEngine();
    if (pgUp) engines.postgres = await postgresEngine();
  });
  afterAll(async () => {
    await engines.duckdb?.close();
    await engines.postgres?.close();
  });

  const count = async (
    dialect: DialectName,
    member: string,
    securityContext: SecurityContext,
    extra = {},
  ) => {
    const q = compileQuery(model, { measures: [member], ...extra }, { dialect, securityContext });
    return (await runQuery(engines[dialect]!, q))[0][member];
  };

  for (const dialect of ['duckdb', 'postgres'] as const) {
    it.skipIf(dialect === 'postgres' && !pgUp)(
      `fills SECURITY_CONTEXT and FILTER_PARAMS from the query (${dialect})`,
      async () => {
        expect(await count(dialect, 'orders.count', {})).toBe('8');
        expect(await count(dialect, 'orders.count', { status: 'completed' })).toBe('5');
        expect(await count(dialect, 'orders.count', { status: ['pending', 'cancelled'] })).toBe('3');
        expect(await count(dialect, 'orders.count', { status: [] })).toBe('0');
        const february = {
          timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-02-01', '2024-02-29'] }],
        };
        expect(await count(dialect, 'orders.count', {}, february)).toBe('3');
        expect(await count(dialect, 'tenant_orders.count', { customer: 2 })).toBe('2');
        expect(await count(dialect, 'tenant_orders.labelled', { customer: 1, label: 'completed' })).toBe('1');
      },
    );
  }

  it('pushes FILTER_PARAMS into the cube SQL, values bound as parameters', () => {
    const q = compileQuery(
      model,
      {
        measures: ['orders.count'],
        filters: [{ member: 'orders.status', operator: 'equals', values: ['x'] }],
        timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-02-01', '2024-02-29'] }],
      },
      { dialect: 'postgres', securityContext: { status: "completed' OR 1=1 --" } },
    );
    expect(q.sql).toMatch(/WHERE status = \$\d+\s+AND \(?created_at >= /);
    expect(q.sql).not.toContain('OR 1=1');
    expect(q.params).toContain("completed' OR 1=1 --");
  });

  it('refuses a query without the value a requiredFilter needs', () => {
    expect(() =>
      compileQuery(model, { measures: ['tenant_orders.count'] }, { dialect: 'duckdb', securityContext: {} }),
    ).toThrow('Filter for customer is required');
  });

  it('reports context variables written wrong as model errors with file and member', () => {
    const { errors } = compileModel([
      {
        path: 'model/bad.yml',
        content: `cubes:
  - name: bad
    sql_table: orders
    dimensions:
      - name: a
        sql: "{SECURITY_CONTEXT.tenant}"
        type: string
      - name: b
        sql: "{FILTER_PARAMS.nope.x.filter('x')}"
        type: string
      - name: c
        sql: "{SQL_UTILS.dateAdd('created_at')}"
        type: time
      - name: d
        sql: "{FILTER_PARAMS.bad.a.filter('x'}"
        type: string
`,
      },
    ]);
    expect(errors.map((e) => [e.line, e.member, e.message])).toEqual([
      [6, 'a', expect.stringMatching(/^SECURITY_CONTEXT is read with \.filter\(\)/)],
      [9, 'b', expect.stringMatching(/^Unknown member nope\.x/)],
      [12, 'c', expect.stringMatching(/^SQL_UTILS offers convertTz\('sql'\) only/)],
      [15, 'd', expect.stringMatching(/^Expected , or \) in the arguments/)],
    ]);
  });
});
