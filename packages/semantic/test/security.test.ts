import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileQuery,
  getMeta,
  resolveAccess,
  type SecurityContext,
  UserError,
} from '../src/index.ts';
import { duckdbEngine, type Engine, runQuery } from './engines.ts';
import { fixtureModel, NOW } from './fixtures/model.ts';

const model = fixtureModel();
const salesUS: SecurityContext = { serviceCloud: { groups: ['sales'], userAttributes: { country: 'US' } } };
const anonymous: SecurityContext = {};
let db: Engine;
beforeAll(async () => {
  db = await duckdbEngine();
});
afterAll(async () => db.close());

const run = (q: CubeQuery, ctx: SecurityContext) =>
  runQuery(db, compileQuery(model, q, { dialect: 'duckdb', securityContext: ctx, now: NOW }));
const compileFor = (q: CubeQuery, ctx: SecurityContext) => () =>
  compileQuery(model, q, { dialect: 'duckdb', securityContext: ctx, now: NOW });

describe('access policies', () => {
  it('resolves hidden members and row filters per context', () => {
    const access = resolveAccess(model, salesUS);
    expect(access.hiddenMembers.has('customers.email')).toBe(true);
    expect(access.hiddenMembers.has('customers.country')).toBe(false);
    expect(access.rowFilters.get('customers')).toEqual({
      and: [{ member: 'customers.country', operator: 'equals', values: ['US'] }],
    });
    expect(resolveAccess(model, anonymous).rowFilters.get('customers')).toBe(false);
  });

  it('rejects members hidden by member-level policies with Cube’s message', () => {
    expect(compileFor({ dimensions: ['customers.email'] }, salesUS)).toThrow(UserError);
    expect(compileFor({ dimensions: ['customers.email'] }, salesUS)).toThrow(
      "You requested hidden member: 'customers.email'",
    );
    expect(compileFor({ measures: ['customers.count'] }, anonymous)).toThrow(
      "You requested hidden member: 'customers.count'",
    );
    expect(
      compileFor(
        { filters: [{ member: 'customers.email', operator: 'set' }], measures: ['orders.count'] },
        salesUS,
      ),
    ).toThrow('hidden member');
  });

  it('evaluates policy conditions against the security context', () => {
    const auditor = (audit_enabled: boolean) => ({ audit_enabled, serviceCloud: { groups: ['auditor'] } });
    expect(
      compileFor({ measures: ['customers.count'], dimensions: ['customers.country'] }, auditor(true)),
    ).not.toThrow();
    expect(compileFor({ dimensions: ['customers.name'] }, auditor(true))).toThrow('hidden member');
    expect(compileFor({ measures: ['customers.count'] }, auditor(false))).toThrow('hidden member');
  });

  it('ANDs row filters even when the query asks for other rows in an or group', async () => {
    const rows = await run(
      {
        measures: ['orders.count'],
        dimensions: ['customers.country'],
        filters: [
          {
            or: [
              { member: 'customers.country', operator: 'equals', values: ['DE'] },
              { member: 'orders.status', operator: 'equals', values: ['completed'] },
            ],
          },
        ],
      },
      salesUS,
    );
    expect(rows).toEqual([{ 'customers.country': 'US', 'orders.count': '2' }]);
  });

  it('applies row filters of cubes joined implicitly by member SQL', async () => {
    const rows = await run(
      {
        measures: ['orders.count'],
        dimensions: ['orders.customer_name'],
        order: { 'orders.customer_name': 'asc' },
      },
      salesUS,
    );
    expect(rows).toEqual([
      { 'orders.customer_name': 'Alice', 'orders.count': '2' },
      { 'orders.customer_name': 'Carol', 'orders.count': '2' },
    ]);
  });

  it('applies row filters inside fan-out subqueries', async () => {
    const q: CubeQuery = {
      measures: ['orders.total_amount', 'line_items.count'],
      dimensions: ['customers.country'],
    };
    const compiled = compileQuery(model, q, { dialect: 'duckdb', securityContext: salesUS, now: NOW });
    expect(compiled.sql.match(/"customers".country = \$1/g)?.length).toBe(2);
    expect(await run(q, salesUS)).toEqual([
      { 'customers.country': 'US', 'orders.total_amount': '325.75', 'line_items.count': '6' },
    ]);
  });

  it('denies every row when no policy applies to a joined cube', async () => {
    expect(
      await run({ measures: ['orders.count'], dimensions: ['orders.customer_name'] }, anonymous),
    ).toEqual([]);
  });

  it('view policies govern queries through the view, whatever the query filters', async () => {
    const rows = await run(
      {
        measures: ['sales_overview.count'],
        filters: [{ member: 'sales_overview.status', operator: 'equals', values: ['cancelled'] }],
      },
      anonymous,
    );
    expect(rows).toEqual([{ 'sales_overview.count': '0' }]);
  });
});

describe('meta', () => {
  it('lists cubes and views with the members the context may see', () => {
    const meta = getMeta(model, salesUS);
    const customers = meta.cubes.find((c) => c.name === 'customers')!;
    // no email (member-level policy), no id (a primary key the model does not make public)
    expect(customers.dimensions.map((d) => d.name)).toEqual(['customers.name', 'customers.country']);
    const orders = meta.cubes.find((c) => c.name === 'orders')!;
    expect(orders.type).toBe('cube');
    expect(orders.connectedComponent).toBe(customers.connectedComponent);
    const count = orders.measures.find((m) => m.name === 'orders.count')!;
    expect(count).toMatchObject({
      title: 'Orders Count',
      shortTitle: 'Count',
      type: 'number',
      aggType: 'count',
    });
    const createdAt = orders.dimensions.find((d) => d.name === 'orders.created_at')!;
    expect((createdAt.granularities as { name: string }[]).map((g) => g.name)).toContain('fiscal_quarter');
    expect(meta.cubes.find((c) => c.name === 'sales_overview')?.type).toBe('view');
    expect(getMeta(model, anonymous).cubes.some((c) => c.name === 'customers')).toBe(false);
  });

  it('adds sql and joins when extended', () => {
    const orders = getMeta(model, salesUS, { extended: true }).cubes.find((c) => c.name === 'orders')!;
    expect(orders.joins).toContainEqual({
      name: 'line_items',
      relationship: 'one_to_many',
      sql: '{orders}.id = {line_items}.order_id',
    });
  });
});
