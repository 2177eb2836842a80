import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, type TestServer } from '../../../test/harness.ts';
import { chunk } from './brain/openai/scripted-endpoint.ts';

/**
 * A chat-completions endpoint whose every answer starts at once ("Let me look.") and ends only
 * when the test opens the gate: a turn that is provably still streaming while a test acts on it.
 */
export async function startGatedModel() {
  let open!: () => void;
  let gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let started!: () => void;
  let firstRequest = new Promise<void>((resolve) => {
    started = resolve;
  });
  const server = http.createServer(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Let me look.' }))}\n\n`);
    started();
    await gate;
    if (res.destroyed) return;
    res.write(`data: ${JSON.stringify(chunk({ content: ' Done.' }))}\n\n`);
    res.write(`data: ${JSON.stringify(chunk({}, 'stop'))}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    /** Resolves once a model call has begun. */
    started: () => firstRequest,
    release: () => open(),
    /** A fresh gate for the next turn. */
    reset() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      firstRequest = new Promise<void>((resolve) => {
        started = resolve;
      });
    },
    close: () => {
      open();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed stream line, read field by field in assertions
export type Line = Record<string, any>;

/** The demo agent the first start created (bootstrap/seed.ts). */
export async function demoAgentId(server: TestServer): Promise<number> {
  const res = await server.app.inject({ url: '/api/v1/agents', headers: bearer(server.adminKey) });
  return res.json().items.find((a: { deploymentId: number }) => a.deploymentId === server.demoDeploymentId)
    .id;
}

export function chatClient(baseUrl: string, apiKey: string, agentId: number, account = 'default') {
  const url = (path: string) => `${baseUrl}/api/v1/public/${account}/agents/${agentId}/chat/${path}`;
  const headers = { authorization: `Api-Key ${apiKey}`, 'content-type': 'application/json' };
  return {
    url,
    /** One request; every line of the stream parsed, in order (heartbeats skipped). */
    async turn(
      body: object,
      signal?: AbortSignal,
    ): Promise<{ status: number; contentType: string; lines: Line[]; body: string }> {
      const res = await fetch(url('stream-chat-state'), {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal,
      });
      const text = await res.text();
      const lines = res.ok
        ? text
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l) as Line)
        : [];
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', lines, body: text };
    },
    /** Reads lines as they arrive until `until` holds for one, then drops the connection. */
    async readUntil(body: object, until: (line: Line) => boolean): Promise<Line[]> {
      const controller = new AbortController();
      const res = await fetch(url('stream-chat-state'), {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      const lines: Line[] = [];
      let pending = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        pending += decoder.decode(value, { stream: true });
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const part of parts.filter((p) => p.trim() !== '')) {
          const line = JSON.parse(part) as Line;
          lines.push(line);
          if (until(line)) {
            controller.abort();
            await reader.cancel().catch(() => undefined);
            return lines;
          }
        }
      }
      return lines;
    },
    abort: (body: object) => fetch(url('abort'), { method: 'POST', headers, body: JSON.stringify(body) }),
  };
}

let clock = 1_750_000_000_000;
/** A fresh `messageId` (spec 4.6 format). */
export const messageId = () => `${clock++}-message`;

/**
 * A chat-completions endpoint answering each request with the next scripted step, streamed as
 * server-sent events. A step marked `hold` leaves its first request hanging until the client
 * gives up (a turn cut while it waits on the model); the next request gets the step's answer.
 */
export async function startStepModel(steps: { chunks: object[]; hold?: boolean }[]) {
  const requests: Line[] = [];
  let index = 0;
  let held = false;
  let onHold!: () => void;
  const holding = new Promise<void>((resolve) => {
    onHold = resolve;
  });
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const part of req) text += part;
    requests.push(JSON.parse(text || '{}'));
    const step = steps[index];
    if (!step) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no step left"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (step.hold && !held) {
      held = true;
      onHold();
      await new Promise((resolve) => res.on('close', resolve));
      return;
    }
    index++;
    for (const c of step.chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    /** Every request body, in order. */
    requests,
    /** Resolves once the held step's first request is waiting. */
    holding: () => holding,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
