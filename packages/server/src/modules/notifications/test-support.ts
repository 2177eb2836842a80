import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { bearer, type TestServer } from '../../../test/harness.ts';
import { contentClient } from '../workspace/test-client.ts';

/** Shared by the notification tests: HTTP calls, a published dashboard, and real receivers. */

export function notificationsApi(server: TestServer, deploymentId = server.demoDeploymentId) {
  const base = `/api/v1/deployments/${deploymentId}/notifications`;
  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
    key = server.adminKey,
  ) => {
    const res = await server.app.inject({
      method,
      url: `${base}${path}`,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  };
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => {
    const res = await call(method, path, payload);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return {
    call,
    ok,
    create: (body: Record<string, unknown>) => ok('POST', '', body),
    addRecipients: (id: number, recipients: Record<string, unknown>[]) =>
      ok('POST', `/${id}/recipients`, { recipients }),
    runs: (id: number) => ok('GET', `/${id}/runs?first=100`),
  };
}

/**
 * A published dashboard on the demo deployment: a bar chart of orders per status (a Vega-Lite
 * spec of its own), a single number without a spec, a yearly line and a text widget.
 */
export async function publishNotificationBoard(server: TestServer, deploymentId = server.demoDeploymentId) {
  const api = contentClient(server, deploymentId);
  const wb = await api.workbook(`Notify ${Math.random().toString(36).slice(2, 8)}`);
  const status = await api.report({
    name: 'Orders by status',
    workbookId: wb.id,
    jsonQuery: JSON.stringify({
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
    }),
    spec: JSON.stringify({
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      mark: 'bar',
      encoding: {
        x: { field: 'orders\\.status', type: 'nominal', title: 'Status', axis: { labelAngle: 0 } },
        y: { field: 'orders\\.count', type: 'quantitative', title: 'Orders' },
      },
    }),
  });
  const total = await api.report({
    name: 'All orders',
    workbookId: wb.id,
    jsonQuery: JSON.stringify({ measures: ['orders.count'] }),
  });
  const yearly = await api.report({
    name: 'Orders per year',
    workbookId: wb.id,
    jsonQuery: JSON.stringify({
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'year' }],
      order: { 'orders.created_at': 'asc' },
    }),
  });
  const board = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
    workbookId: wb.id,
    config: {
      title: 'Order report',
      description: 'Orders by status and year',
      layout: { rowHeight: 30, margin: [12, 12], containerPadding: [16, 16] },
      widgets: [
        { id: 'status', position: { x: 0, y: 0, w: 6, h: 8 }, config: { reportId: status.id } },
        { id: 'total', position: { x: 6, y: 0, w: 3, h: 4 }, config: { reportId: total.id } },
        {
          id: 'note',
          position: { x: 9, y: 0, w: 3, h: 4 },
          config: { text: 'Figures from the sample data' },
        },
        { id: 'yearly', position: { x: 6, y: 4, w: 6, h: 4 }, config: { reportId: yearly.id } },
      ],
    },
  });
  return { workbookId: wb.id as number, publicId: board.publicId as string, dashboardId: board.id as number };
}

/**
 * An SMTP server in this process (smtp-server) that keeps every message, parsed (mailparser).
 * `port`: listen where an earlier mailbox did, as a server that was down and is up again;
 * `closeTimeoutMs`: how long closing waits for clients' connections before dropping them.
 */
export async function startMailbox(options: { port?: number; closeTimeoutMs?: number } = {}) {
  const messages: ParsedMail[] = [];
  const envelopes: string[][] = [];
  const waiters: (() => void)[] = [];
  let refuse = 0;
  let seen = 0;
  let hold: { at: number; reached: () => void } | null = null;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 50 * 1024 * 1024,
    ...(options.closeTimeoutMs === undefined ? {} : { closeTimeout: options.closeTimeoutMs }),
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        seen++;
        // Held: the message is read but never answered, as a server that hangs mid-delivery.
        if (hold && seen === hold.at) {
          hold.reached();
          return;
        }
        if (refuse > 0) {
          refuse--;
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        messages.push(await simpleParser(Buffer.concat(chunks), { keepCidLinks: true }));
        envelopes.push(session.envelope.rcptTo.map((r) => r.address));
        callback();
        for (const w of waiters.splice(0)) w();
      });
    },
  });
  smtp.listen(options.port ?? 0, '127.0.0.1');
  await once(smtp.server, 'listening');
  const port = (smtp.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    envelopes,
    /** The `n`th message from now is read and never answered; resolves once it arrives. */
    holdMessage(n: number): Promise<void> {
      return new Promise((resolve) => {
        hold = { at: seen + n, reached: resolve };
      });
    },
    /** The next `n` messages are refused with a temporary (4xx) reply. */
    refuseNext(n: number) {
      refuse = n;
    },
    async waitFor(count: number, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server receiving webhooks; `status` decides each answer. */
export async function startHookReceiver(status: (n: number) => number = () => 200) {
  const received: ReceivedHook[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const code = status(n++);
      if (code >= 200 && code < 300)
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(code).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/tessera`,
    received,
    attempts: () => n,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const pngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
