import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatLine, type ChatMessage, mergeMessage } from '../../client/src/index.ts';
import { startGatedModel } from '../../server/src/modules/chat/test-support.ts';
import { bearer } from '../../server/test/harness.ts';
import { applyMessage, boldRuns, rowsOf, type Turn, viewOf } from '../src/chat/conversation.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

/** The messages `streamChat` hands out for these lines: each merged with its earlier versions. */
function messagesOf(lines: ChatLine[]): ChatMessage[] {
  const byId = new Map<string, ChatMessage>();
  return lines.map((line) => {
    const id = line.id as string;
    const merged = mergeMessage(byId.get(id), { ...line, id });
    byId.set(id, merged);
    return merged;
  });
}

const agentNode = ['service_data_analyst_agent'];
const tools = ['service_data_analyst_agent', 'tools'];

/** The panel's model of a turn (conversation.ts). */
describe('chat panel parts', () => {
  const sql = 'SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1';
  const input = JSON.stringify({ sqlQuery: sql, queryTitle: 'Orders by status' });
  const result = JSON.stringify({
    sqlQuery: sql,
    schema: [
      { name: 'status', column_type: 'Utf8' },
      { name: 'n', column_type: 'Int64' },
    ],
    data: [
      ['shipped', '12'],
      ['cancelled', null],
    ],
    totalRows: 2,
    vegaSpec: JSON.stringify({ title: 'Orders by status', mark: { type: 'bar' } }),
  });
  const lines: ChatLine[] = [
    { id: '__cutoff__', role: 'assistant', sort: 0, state: { chatId: 't', isStreaming: true } },
    { id: '1-message', role: 'user', content: 'Orders by status?', isDelta: false, sort: 1 },
    {
      id: 'a',
      role: 'assistant',
      content: '',
      graphPath: agentNode,
      isDelta: true,
      isInProcess: true,
      sort: 2,
    },
    {
      id: 'a',
      role: 'assistant',
      thinking: 'Counting.',
      graphPath: agentNode,
      isDelta: true,
      isInProcess: true,
    },
    {
      id: 'q',
      role: 'assistant',
      graphPath: tools,
      isInProcess: true,
      toolCall: { name: 'serviceSqlApi', input },
    },
    {
      id: 'q',
      role: 'assistant',
      graphPath: tools,
      isInProcess: false,
      toolCall: { name: 'serviceSqlApi', input, result },
    },
    {
      id: 'b',
      role: 'assistant',
      content: 'Shipped: **12**',
      graphPath: agentNode,
      isDelta: true,
      isInProcess: true,
    },
  ];
  const final: ChatLine = {
    id: 'f',
    role: 'assistant',
    content: 'Shipped: **12**',
    graphPath: ['final'],
    isDelta: false,
    isInProcess: false,
  };

  it('shows the streaming words as the answer in progress, then the final answer once', () => {
    let turn: Turn = { key: 'k', question: 'Orders by status?', messages: [], status: 'streaming' };
    for (const m of messagesOf(lines)) turn = applyMessage(turn, m);
    let view = viewOf(turn);
    expect(view.thinking).toBe('Counting.');
    expect(view.steps.map((s) => s.kind)).toEqual(['tool']);
    expect(view.answer).toMatchObject({ text: 'Shipped: **12**', streaming: true });

    for (const m of messagesOf([...lines, final, { id: '__usage__', type: 'usage' }]).slice(lines.length))
      turn = applyMessage(turn, m);
    view = viewOf(turn);
    expect(turn.status).toBe('done');
    expect(view.answer).toMatchObject({ key: 'f', text: 'Shipped: **12**', streaming: false });
    // the words that became the answer are not shown a second time
    expect(view.steps.filter((s) => s.kind === 'text')).toEqual([]);
    expect(view.charts).toEqual([
      {
        key: 'q',
        title: 'Orders by status',
        spec: { title: 'Orders by status', mark: { type: 'bar' } },
        rows: [
          { status: 'shipped', n: 12 },
          { status: 'cancelled', n: null },
        ],
      },
    ]);
  });

  it('marks a turn stopped by __aborted__ and reads bold runs and numeric columns', () => {
    let turn: Turn = { key: 'k', question: 'x', messages: [], status: 'streaming' };
    turn = applyMessage(turn, { id: '__aborted__', type: 'abort' } as ChatMessage);
    turn = applyMessage(turn, { id: '__usage__', type: 'usage' } as ChatMessage);
    expect(turn.status).toBe('stopped');
    expect(boldRuns('a **1,234** b')).toEqual([
      { text: 'a ', bold: false },
      { text: '1,234', bold: true },
      { text: ' b', bold: false },
    ]);
    expect(
      rowsOf({
        schema: [
          { name: 'd', column_type: 'Timestamp' },
          { name: 'v', column_type: 'Decimal(38,2)' },
        ],
        data: [['2024-01-01T00:00:00.000', '1.50']],
      }),
    ).toEqual([{ d: '2024-01-01T00:00:00.000', v: 1.5 }]);
  });
});

const password = 'questions deserve answers';

describeInBrowser('chat panel in the browser', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let adminEmail: string;
  let model: Awaited<ReturnType<typeof startGatedModel>>;
  const agents: Record<'demo' | 'gated' | 'unreachable', number> = { demo: 0, gated: 0, unreachable: 0 };

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** The same question through the chat endpoint, as the admin: its final answer and query result. */
  async function askDirectly(question: string) {
    const res = await web.server.app.inject({
      method: 'POST',
      url: `/api/v1/public/default/agents/${agents.demo}/chat/stream-chat-state`,
      headers: { authorization: `Api-Key ${web.server.adminKey}` },
      payload: { input: question, sessionSettings: { internalId: adminEmail } },
    });
    const lines = res.body
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    const query = lines.filter((l) => l.toolCall?.name === 'serviceSqlApi' && l.toolCall.result).at(-1);
    return {
      answer: lines.filter((l) => l.graphPath?.[0] === 'final').at(-1)?.content as string,
      result: JSON.parse(query.toolCall.result),
    };
  }

  const chatUrl = (agent?: number) => `${web.baseUrl}/chat/${deploymentId}${agent ? `?agent=${agent}` : ''}`;

  /** Types a question and sends it with Enter, as a keyboard user does. */
  async function ask(page: Page, question: string) {
    const field = page.getByLabel('Ask a question about your data');
    await field.focus();
    await page.keyboard.type(question);
    await page.keyboard.press('Enter');
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    adminEmail = (await api('GET', `/api/v1/users/${web.server.adminUserId}`)).email;
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    const list = await api('GET', '/api/v1/agents');
    agents.demo = list.items.find((a: { deploymentId: number }) => a.deploymentId === deploymentId).id;
    model = await startGatedModel();
    agents.gated = (
      await api('POST', '/api/v1/agents', {
        name: 'Slow thinker',
        deploymentId,
        brain: { kind: 'openai', baseURL: model.url, model: 'gated-model' },
      })
    ).id;
    agents.unreachable = (
      await api('POST', '/api/v1/agents', {
        name: 'Unplugged',
        deploymentId,
        // nothing listens on the discard port: every model call fails at once
        brain: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'none' },
      })
    ).id;

    browser = await openBrowser(web.baseUrl, { viewport: { width: 1100, height: 900 } });
    const { page } = browser;
    await page.goto(chatUrl());
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(chatUrl());
    // Chromium logs the 401 that sent the page to sign in as a console error: an answer asked for
    browser.errors.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await model?.close();
    await web?.close();
  });

  it('asks the demo agent a question and shows the answer, its query and its chart', async () => {
    const { page } = browser;
    const question = 'Show orders by month in 2024';
    await page.getByRole('heading', { name: 'Ask your data', level: 1 }).waitFor();
    await page.getByRole('region', { name: /^Chat with / }).waitFor();
    await ask(page, question);

    const turn = page.locator('.tsr-chat-turn').last();
    await turn.locator('.tsr-chat-question').getByText(question).waitFor();
    await page.locator('.tsr-chat-turn[data-turn-status="done"]').first().waitFor();
    const direct = await askDirectly(question);
    // the final answer, as the agent wrote it (bold marks drawn as bold)
    const answer = turn.locator('.tsr-chat-answer-text');
    expect((await answer.innerText()).trim()).toBe(direct.answer.replaceAll('**', '').trim());
    expect(direct.result.data.length).toBe(12);

    // the chart drawn from the query's rows: one point per month
    const chart = turn.locator('.tsr-chat-chart[data-chart-state="drawn"]');
    await chart.waitFor();
    expect(await chart.locator('svg .mark-symbol path').count()).toBe(direct.result.data.length);
    expect(await chart.locator('svg .mark-line path').count()).toBe(1);

    // tool calls are collapsed; opening the query with the keyboard shows its SQL
    const query = turn.locator('details.tsr-chat-tool[data-tool="serviceSqlApi"]').last();
    expect(await query.getAttribute('open')).toBeNull();
    await query.locator('summary').focus();
    await page.keyboard.press('Enter');
    await query.locator('.tsr-chat-sql').waitFor();
    expect((await query.locator('.tsr-chat-sql').innerText()).trim()).toBe(direct.result.sqlQuery.trim());
    expect(await query.locator('summary').innerText()).toContain('12 rows');

    await browser.screenshot('chat-01-answer-and-query');
    await chart.scrollIntoViewIfNeeded();
    await browser.screenshot('chat-02-chart');
    expect(browser.errors).toEqual([]);
    expect(browser.offOrigin).toEqual([]);
  });

  it('continues the thread: a second question is a second turn of the same conversation', async () => {
    const { page } = browser;
    await ask(page, 'How many orders are there?');
    const turns = page.locator('.tsr-chat-turn');
    await expect.poll(() => turns.count()).toBe(2);
    await turns.nth(1).locator('.tsr-chat-answer').waitFor();
    await page.locator('.tsr-chat-turn[data-turn-status="done"]').nth(1).waitFor();
    const direct = await askDirectly('How many orders are there?');
    expect((await turns.nth(1).locator('.tsr-chat-answer-text').innerText()).trim()).toBe(
      direct.answer.replaceAll('**', '').trim(),
    );
    // a single total is drawn as a big number
    await turns.nth(1).locator('.tsr-chat-chart[data-chart-state="drawn"] svg .mark-text').waitFor();
    // the panel's two questions are one thread (each direct question made a thread of its own)
    const runs = await web.server.store.db
      .selectFrom('chat_runs')
      .select(['thread_id', 'input'])
      .orderBy('id')
      .execute();
    const threads = new Map<string, string[]>();
    for (const r of runs) threads.set(r.thread_id, [...(threads.get(r.thread_id) ?? []), r.input]);
    expect([...threads.values()]).toContainEqual([
      'Show orders by month in 2024',
      'How many orders are there?',
    ]);
    expect(browser.errors).toEqual([]);
  });

  it('states a currency measure in dollars, in the answer and in its figure (issue 21)', async () => {
    const { page } = browser;
    const question = 'What is the total revenue?';
    await ask(page, question);
    const turn = page.locator('.tsr-chat-turn').last();
    await turn.locator('.tsr-chat-question').getByText(question).waitFor();
    await page.locator('.tsr-chat-turn[data-turn-status="done"]').nth(2).waitFor();
    const direct = await askDirectly(question);
    const total = Number(direct.result.data[0][0]);
    const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(total);
    const text = (await turn.locator('.tsr-chat-answer-text').innerText()).trim();
    expect(text).toBe(`Line-item revenue: ${dollars}.`);
    const figure = turn.locator('.tsr-chat-chart[data-chart-state="drawn"] svg .mark-text text');
    await figure.waitFor();
    expect(await figure.textContent()).toBe(dollars);
    await browser.screenshot('chat-05-currency');
    expect(browser.errors).toEqual([]);
  });

  it('stops a streaming turn with the Stop button, and with Escape', async () => {
    const { page } = browser;
    for (const how of ['button', 'escape'] as const) {
      model.reset();
      await page.goto(chatUrl(agents.gated));
      await page.getByRole('heading', { name: 'Slow thinker' }).waitFor();
      await ask(page, 'Take your time');
      const turn = page.locator('.tsr-chat-turn').last();
      // the model's first words arrive while it still thinks
      await turn.locator('.tsr-chat-answer[data-streaming]').getByText('Let me look.').waitFor();
      await model.started();
      if (how === 'button') {
        await browser.screenshot('chat-03-streaming');
        await page.getByRole('button', { name: 'Stop' }).click();
      } else {
        await page.getByLabel('Ask a question about your data').focus();
        await page.keyboard.press('Escape');
      }
      await page.locator('.tsr-chat-turn[data-turn-status="stopped"]').waitFor();
      await turn.getByText('Stopped before the answer.').waitFor();
      const chatRuns = await web.server.store.db
        .selectFrom('chat_runs')
        .select(['status', 'input'])
        .where('input', '=', 'Take your time')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(chatRuns.status).toBe('aborted');
      // the panel takes the next question
      await expect.poll(() => page.getByRole('button', { name: 'Send' }).count()).toBe(1);
    }
    expect(browser.errors).toEqual([]);
  });

  it('shows a failure inside the conversation', async () => {
    const { page } = browser;
    await page.goto(chatUrl(agents.unreachable));
    await page.getByRole('heading', { name: 'Unplugged' }).waitFor();
    await ask(page, 'Anyone there?');
    const alert = page.locator('.tsr-chat-turn').last().getByRole('alert');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.innerText()).toBe('Could not reach the language model endpoint.');
    await browser.screenshot('chat-04-error');
    // the page stays usable
    expect(await page.getByLabel('Ask a question about your data').isEnabled()).toBe(true);
  });
});
