import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { compileModelOrThrow } from '@tessera/semantic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbDriver } from '../../../../datasources/duckdb-driver.ts';
import { ask, numbersIn, semanticTools, states } from '../test-support.ts';
import type { ChatTools } from '../types.ts';
import { BuiltinBrain } from './brain.ts';
import { ticketDataSql, ticketModelFiles } from './tickets-fixture.ts';

/**
 * The built-in brain on a model it was not written for (support tickets), with its own data:
 * titles and synonyms name the measures, and every figure is checked against direct SQL.
 */
const cases: { question: string; direct: string }[] = [
  {
    question: 'How many tickets were opened last month?',
    direct: "SELECT count(*) FROM tickets WHERE opened_at >= '2025-05-01' AND opened_at < '2025-06-01'",
  },
  {
    question: 'Average resolution time by priority',
    direct: 'SELECT priority, avg(resolution_hours) FROM tickets GROUP BY 1 ORDER BY 2 DESC',
  },
  {
    question: 'Top 2 teams by tickets in 2024',
    direct: `SELECT a.team, count(*) FROM tickets t JOIN agents a ON t.agent_id = a.id
      WHERE t.opened_at >= '2024-01-01' AND t.opened_at < '2025-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 2`,
  },
  {
    question: 'Tickets by channel 2024 vs 2025',
    direct: 'SELECT channel, year(opened_at), count(*) FROM tickets GROUP BY 1, 2 ORDER BY 1, 2',
  },
  {
    question: 'What is the csat in 2024?',
    direct:
      "SELECT avg(score) FROM surveys WHERE submitted_at >= '2024-01-01' AND submitted_at < '2025-01-01'",
  },
];

describe('built-in brain on a support-tickets model', () => {
  let dir: string;
  let driver: DuckDbDriver;
  let tools: ChatTools;
  const brain = new BuiltinBrain();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-brain-tickets-'));
    const file = path.join(dir, 'tickets.duckdb');
    const instance = await DuckDBInstance.create(file);
    const conn = await instance.connect();
    for (const sql of ticketDataSql) await conn.run(sql);
    conn.closeSync();
    instance.closeSync();
    driver = await DuckDbDriver.open(file, true);
    tools = semanticTools(compileModelOrThrow(ticketModelFiles), driver);
  });

  afterAll(async () => {
    await driver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(cases)('$question', async ({ question, direct }) => {
    const { answer } = await ask(brain, tools, question);
    const expected = await driver.query(direct, []);
    expect(expected.length).toBeGreaterThan(0);
    expect(answer).not.toMatch(/I could not/);
    for (const row of expected) {
      for (const value of Object.values(row)) {
        if (typeof value === 'string') expect(answer).toContain(value);
        else expect(states(answer, Number(value)), `${answer}\n-- should state ${value}`).toBe(true);
      }
    }
  });

  it('recovers from a failing query by dropping the filter it could not apply, and says so', async () => {
    // surveys join nothing: "urgent" is a ticket priority, so the filtered query has no join path
    const { answer, events } = await ask(brain, tools, 'Average satisfaction score for urgent tickets');
    const failed = events.filter((e) => e.type === 'tool_result' && e.isError);
    expect(failed).toHaveLength(1);
    expect(JSON.parse((failed[0] as { result: string }).result).error).toMatch(/join path/);
    expect(answer).toMatch(/^I could not apply Priority is urgent/);
    const [overall] = await driver.query('SELECT avg(score) AS s FROM surveys', []);
    expect(states(answer, Number(overall.s))).toBe(true);
  });

  it('names the words it could not place and states no number', async () => {
    const { answer } = await ask(brain, tools, 'How many unicorns escaped?');
    expect(answer).toMatch(/^I could not understand "unicorns" and "escaped"/);
    expect(numbersIn(answer)).toEqual([]);
  });
});
