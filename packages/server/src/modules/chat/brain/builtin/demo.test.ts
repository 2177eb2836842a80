import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileModelOrThrow } from '@tessera/semantic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbDriver } from '../../../../datasources/duckdb-driver.ts';
import { ensureSampleDatabase } from '../../../../datasources/sample/generate.ts';
import { sampleModelFiles } from '../../../../datasources/sample/model-files.ts';
import { ask, numbersIn, semanticTools, states } from '../test-support.ts';
import type { ChatTools } from '../types.ts';
import { BuiltinBrain } from './brain.ts';

/**
 * Twenty questions about the demo data, answered by the built-in brain over the real semantic
 * layer and DuckDB; every figure the answer must state comes from hand-written SQL run directly
 * on the same database. The brain's clock is 2025-06-15 (TEST_NOW): "last quarter" is Q1 2025.
 */
const revenue = 'sum(li.quantity * li.price)';
const itemsOfOrders = 'line_items li JOIN orders o ON li.order_id = o.id';

const cases: { question: string; direct: string; chart: string; ordered?: boolean }[] = [
  { question: 'How many orders are there?', direct: 'SELECT count(*) FROM orders', chart: 'text' },
  {
    question: 'What is the total amount of orders in 2024?',
    direct: "SELECT sum(amount) FROM orders WHERE created_at >= '2024-01-01' AND created_at < '2025-01-01'",
    chart: 'text',
  },
  {
    question: 'Average order amount by status',
    direct: 'SELECT status, avg(amount) FROM orders GROUP BY 1 ORDER BY 2 DESC',
    chart: 'bar',
    ordered: true,
  },
  {
    question: 'Show orders by month in 2024',
    direct: `SELECT count(*) FROM orders WHERE created_at >= '2024-01-01' AND created_at < '2025-01-01'
      GROUP BY date_trunc('month', created_at) ORDER BY date_trunc('month', created_at)`,
    chart: 'line',
  },
  {
    question: 'Top 5 countries by revenue',
    direct: `SELECT c.country, ${revenue} FROM ${itemsOfOrders} JOIN customers c ON o.customer_id = c.id
      GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
    chart: 'bar',
    ordered: true,
  },
  {
    question: 'Revenue last quarter',
    direct: `SELECT ${revenue} FROM ${itemsOfOrders} WHERE o.created_at >= '2025-01-01' AND o.created_at < '2025-04-01'`,
    chart: 'text',
  },
  {
    question: 'How many orders in France?',
    direct: "SELECT count(*) FROM orders o JOIN customers c ON o.customer_id = c.id WHERE c.country = 'FR'",
    chart: 'text',
  },
  {
    question: 'How many completed orders in 2024?',
    direct: `SELECT count(*) FROM orders WHERE status = 'completed'
      AND created_at >= '2024-01-01' AND created_at < '2025-01-01'`,
    chart: 'text',
  },
  {
    question: 'Compare completed and cancelled orders',
    direct:
      "SELECT status, count(*) FROM orders WHERE status IN ('completed', 'cancelled') GROUP BY 1 ORDER BY 2 DESC",
    chart: 'bar',
    ordered: true,
  },
  {
    question: 'Total amount 2023 vs 2024',
    direct: `SELECT year(created_at), sum(amount) FROM orders WHERE year(created_at) IN (2023, 2024)
      GROUP BY 1 ORDER BY 1`,
    chart: 'bar',
  },
  {
    question: 'Orders in the last 7 days',
    direct: "SELECT count(*) FROM orders WHERE created_at >= '2025-06-08' AND created_at < '2025-06-15'",
    chart: 'text',
  },
  {
    question: 'Total amount since March',
    direct: "SELECT sum(amount) FROM orders WHERE created_at >= '2025-03-01' AND created_at < '2025-06-16'",
    chart: 'text',
  },
  {
    question: 'Monthly revenue between Jan and Mar 2024',
    direct: `SELECT ${revenue} FROM ${itemsOfOrders} WHERE o.created_at >= '2024-01-01' AND o.created_at < '2024-04-01'
      GROUP BY date_trunc('month', o.created_at) ORDER BY date_trunc('month', o.created_at)`,
    chart: 'line',
  },
  {
    question: 'Daily orders in the last 7 days',
    direct: `SELECT count(*) FROM orders WHERE created_at >= '2025-06-08' AND created_at < '2025-06-15'
      GROUP BY date_trunc('day', created_at) ORDER BY date_trunc('day', created_at)`,
    chart: 'line',
  },
  {
    question: 'Which product category has the most revenue?',
    direct: `SELECT p.category, sum(li.quantity * li.price) FROM line_items li JOIN products p ON li.product_id = p.id
      GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    chart: 'bar',
  },
  {
    question: 'Top 3 products by revenue',
    direct: `SELECT p.name, sum(li.quantity * li.price) FROM line_items li JOIN products p ON li.product_id = p.id
      GROUP BY 1 ORDER BY 2 DESC LIMIT 3`,
    chart: 'bar',
    ordered: true,
  },
  {
    question: 'Unique customers per year',
    direct: 'SELECT year(created_at), count(DISTINCT customer_id) FROM orders GROUP BY 1 ORDER BY 1',
    chart: 'line',
  },
  {
    question: 'Average price by category',
    direct: 'SELECT category, avg(price) FROM products GROUP BY 1 ORDER BY 2 DESC',
    chart: 'bar',
    ordered: true,
  },
  {
    question: 'How many customers in Germany by year?',
    direct: "SELECT year(created_at), count(*) FROM customers WHERE country = 'DE' GROUP BY 1 ORDER BY 1",
    chart: 'line',
  },
  {
    question: 'Total quantity by product category',
    direct: `SELECT p.category, sum(li.quantity) FROM line_items li JOIN products p ON li.product_id = p.id
      GROUP BY 1 ORDER BY 2 DESC`,
    chart: 'bar',
    ordered: true,
  },
];

/** More phrasings: fewest, codes in capitals, a three-cube join, numeric filters, a value after a verb. */
const morePhrasings: typeof cases = [
  {
    question: 'Which status has the fewest orders?',
    direct: 'SELECT status, count(*) FROM orders GROUP BY 1 ORDER BY 2 ASC LIMIT 1',
    chart: 'bar',
  },
  {
    question: 'Total amount for US and Canada',
    direct: `SELECT c.country, sum(o.amount) FROM orders o JOIN customers c ON o.customer_id = c.id
      WHERE c.country IN ('US', 'CA') GROUP BY 1 ORDER BY 2 DESC`,
    chart: 'bar',
    ordered: true,
  },
  {
    question: 'Revenue per category 2023 vs 2024',
    direct: `SELECT p.category, year(o.created_at), sum(li.quantity * li.price) FROM ${itemsOfOrders}
      JOIN products p ON li.product_id = p.id WHERE year(o.created_at) IN (2023, 2024) GROUP BY 1, 2`,
    chart: 'bar',
  },
  {
    question: 'Orders with amount over 400 this year',
    direct:
      "SELECT count(*) FROM orders WHERE amount > 400 AND created_at >= '2025-01-01' AND created_at < '2026-01-01'",
    chart: 'text',
  },
  {
    question: 'How many orders were cancelled last month?',
    direct: `SELECT count(*) FROM orders WHERE status = 'cancelled'
      AND created_at >= '2025-05-01' AND created_at < '2025-06-01'`,
    chart: 'text',
  },
  {
    question: 'Orders this month vs last month',
    direct: `SELECT count(*) FROM orders WHERE created_at >= '2025-05-01' AND created_at < '2025-07-01'
      GROUP BY month(created_at) ORDER BY month(created_at)`,
    chart: 'bar',
  },
  {
    question: 'Revenue in the UK',
    direct: `SELECT ${revenue} FROM ${itemsOfOrders} JOIN customers c ON o.customer_id = c.id WHERE c.country = 'GB'`,
    chart: 'text',
  },
];

describe('built-in brain on the demo model', () => {
  let dir: string;
  let driver: DuckDbDriver;
  let tools: ChatTools;
  const brain = new BuiltinBrain();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-brain-'));
    const file = path.join(dir, 'sample.duckdb');
    await ensureSampleDatabase(file, 0.01);
    driver = await DuckDbDriver.open(file, true);
    tools = semanticTools(compileModelOrThrow(sampleModelFiles()), driver);
  });

  afterAll(async () => {
    await driver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([...cases, ...morePhrasings])('$question', async ({ question, direct, chart, ordered }) => {
    const { answer, queries } = await ask(brain, tools, question);
    const expected = await driver.query(direct, []);
    expect(expected.length).toBeGreaterThan(0);
    expect(answer).not.toMatch(/I could not/);
    for (const row of expected) {
      for (const value of Object.values(row)) {
        if (typeof value === 'string') expect(answer).toContain(value);
        else expect(states(answer, Number(value)), `${answer}\n-- should state ${value}`).toBe(true);
      }
    }
    if (ordered) {
      // ranked answers list the items in the order of the direct SQL
      const labels = expected.map((r) => Object.values(r)[0] as string);
      const positions = labels.map((l) => answer.indexOf(`${l}:`));
      expect(
        positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1])),
        answer,
      ).toBe(true);
    }
    const spec = JSON.parse(queries.at(-1)?.vegaSpec ?? '{}');
    expect(spec.mark?.type).toBe(chart);
    expect(spec.data).toBeUndefined();
  });

  it.each([
    ['What is the churn rate of unicorns?', ['churn', 'rate', 'unicorns']],
    ['Revenue in Atlantis', ['atlantis']],
    ['How many frobnications per widget?', ['frobnications', 'widget']],
    ['Orders by day of week', ['by day of week']],
  ])('says plainly what it could not understand: %s', async (question, words) => {
    const { answer, queries } = await ask(brain, tools, question);
    expect(answer).toMatch(/^I could not understand/);
    for (const w of words) expect(answer).toContain(`"${w}"`);
    expect(numbersIn(answer)).toEqual([]);
    // no query over a measure was run: no figure could have been taken from anywhere
    expect(queries.some((q) => /MEASURE\(/.test(q.sqlQuery))).toBe(false);
  });

  it('names one measure by one word, with its own title, and no other under it (issue 21)', async () => {
    // The demo model has two sums of money: the orders' amounts and the line items' quantity x
    // price. Whatever words ask for revenue (or sales) read the same measure and say its title;
    // the orders' amounts answer under theirs.
    const revenueQuestions = [
      'Revenue',
      'What is the total revenue?',
      'Total sales',
      'Revenue in 2024',
      'Sales by month in 2024',
      'Revenue by country',
    ];
    for (const question of revenueQuestions) {
      const { answer, queries } = await ask(brain, tools, question);
      const sql = queries.at(-1)?.sqlQuery ?? '';
      expect(sql, question).toMatch(/MEASURE\(revenue\)/);
      expect(sql, question).not.toMatch(/total_amount/);
      expect(answer, question).toContain('Line-item revenue');
    }
    const { answer, queries } = await ask(brain, tools, 'Total order amount in 2024');
    expect(queries.at(-1)?.sqlQuery).toMatch(/MEASURE\(total_amount\)/);
    expect(answer).toContain('Total order amount');
    expect(answer).not.toMatch(/revenue/i);
  });

  it("states figures in the measure's format: currency as dollars (issue 21)", async () => {
    const [row] = await driver.query(`SELECT ${revenue} AS v FROM line_items li`, []);
    const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
      Number(row.v),
    );
    const { answer, queries } = await ask(brain, tools, 'What is the total revenue?');
    expect(answer).toContain(`**${dollars}**`);
    // The chart beside it (a big number) states it in dollars too.
    expect(JSON.parse(queries.at(-1)?.vegaSpec ?? '{}').encoding.text.format).toBe('$,.2f');
    // A count has no format: a plain number.
    const [orders] = await driver.query('SELECT count(*) AS n FROM orders', []);
    const counted = await ask(brain, tools, 'How many orders are there?');
    expect(counted.answer).toContain(`**${Number(orders.n).toLocaleString('en-US')}**`);
  });

  it('does not count when asked for an average of something it cannot name', async () => {
    const { answer, queries } = await ask(brain, tools, 'What is the average order value?');
    expect(answer).toMatch(/^I could not tell what "average" applies to/);
    expect(answer).toContain('Avg Amount (Orders)');
    expect(queries).toEqual([]);
  });

  it('streams tool calls paired with their results, then one final answer', async () => {
    const { events } = await ask(brain, tools, 'Total amount by status in 2024');
    const calls = events.filter((e) => e.type === 'tool_call');
    const results = events.filter((e) => e.type === 'tool_result');
    expect(calls.map((c) => c.name)).toEqual(['serviceMeta', 'serviceSqlApi']);
    expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
    const meta = JSON.parse(results[0].result);
    expect(meta.cubes.map((c: { name: string }) => c.name)).toContain('orders');
    const data = JSON.parse(results[1].result);
    expect(data.schema.map((c: { name: string }) => c.name)).toEqual(['status', 'total_amount']);
    expect(data.totalRows).toBe(5);
    expect(events.filter((e) => e.type === 'final')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('final');
    const streamed = events.flatMap((e) => (e.type === 'content' ? [e.delta] : [])).join('');
    expect(streamed.trim()).toBe((events.at(-1) as { content: string }).content);
  });

  it('stops without a final answer when the turn is aborted', async () => {
    const controller = new AbortController();
    const abortingTools: ChatTools = {
      serviceMeta: (input, signal) => {
        controller.abort();
        return tools.serviceMeta(input, signal);
      },
      serviceSqlApi: (input, signal) => tools.serviceSqlApi(input, signal),
    };
    const { events } = await ask(brain, abortingTools, 'How many orders are there?', controller.signal);
    expect(events.some((e) => e.type === 'final' || e.type === 'error')).toBe(false);
    expect(events.some((e) => e.type === 'tool_call' && e.name === 'serviceSqlApi')).toBe(false);
  });

  it('reports a tool that throws without its internals', async () => {
    const failing: ChatTools = {
      serviceMeta: (input, signal) => tools.serviceMeta(input, signal),
      serviceSqlApi: async () => {
        throw new Error('connection to 10.0.0.7:5432 refused (password=hunter2)');
      },
    };
    const { answer } = await ask(brain, failing, 'How many orders are there?');
    expect(answer).toMatch(/^I could not run the query/);
    expect(answer).not.toMatch(/10\.0\.0\.7|hunter2/);
  });
});
