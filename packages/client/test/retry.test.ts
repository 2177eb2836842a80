import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type RetryEvent } from '../src/index.ts';
import { delayBeforeRetry } from '../src/retry.ts';
import { type ListeningServer, startListening } from './support.ts';

const LIMIT = 3;

/**
 * Retries against the server's real rate limiter (http/rate-limit.ts: LIMIT requests per minute
 * per credential, then 429 with Retry-After). The limiter counts its window with `Date.now()`;
 * the tests move that clock (only Date is faked, timers stay real) so that a window is nearly over
 * when the client is told to wait, instead of sleeping through a real minute.
 */
describe('retries of 429 against a listening server', () => {
  let s: ListeningServer;
  const t0 = Date.parse('2026-06-01T00:00:00Z');
  beforeAll(async () => {
    s = await startListening({ rateLimitPerMinute: LIMIT });
  });
  afterAll(() => s?.close());
  afterEach(() => vi.useRealTimers());

  /** Spends the admin key's requests of the window that starts at `at`. */
  async function exhaustWindow(at: number) {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at);
    const plain = createClient({ baseUrl: s.baseUrl, token: s.server.adminKey, retry: false });
    for (let i = 0; i < LIMIT; i++) expect((await plain.GET('/api/v1/users/me')).response.status).toBe(200);
    const limited = await plain.GET('/api/v1/users/me');
    expect(limited.response.status).toBe(429);
    expect(limited.error?.code).toBe('rate_limited');
  }

  function countingClient(onRetry: (event: RetryEvent) => void) {
    const statuses: number[] = [];
    const client = createClient({
      baseUrl: s.baseUrl,
      token: s.server.adminKey,
      retry: { onRetry },
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    return { client, statuses };
  }

  it('waits what Retry-After asks and then succeeds', async () => {
    await exhaustWindow(t0);
    vi.setSystemTime(t0 + 59_000); // one second of the window left: the server asks for 1 s
    const delays: number[] = [];
    const { client, statuses } = countingClient((event) => {
      delays.push(event.delayMs);
      vi.setSystemTime(t0 + 61_000); // the second the client sleeps passes for the server too
    });
    const { data, response } = await client.GET('/api/v1/users/me');
    expect(statuses).toEqual([429, 200]);
    expect(delays).toEqual([1000]);
    expect(response.status).toBe(200);
    expect(data?.id).toBe(s.server.adminUserId);
  });

  it('does not retry a POST unless asked to', async () => {
    await exhaustWindow(t0 + 600_000);
    const { client, statuses } = countingClient(() => undefined);
    const { error } = await client.POST('/api/v1/groups', { body: { name: 'not retried' } });
    expect(error?.code).toBe('rate_limited');
    expect(statuses).toEqual([429]);
  });

  it('gives up when the server asks for a longer wait than maxDelayMs', async () => {
    await exhaustWindow(t0 + 1_200_000);
    const statuses: number[] = [];
    const impatient = createClient({
      baseUrl: s.baseUrl,
      token: s.server.adminKey,
      retry: { maxDelayMs: 5_000 },
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    const { response } = await impatient.GET('/api/v1/users/me');
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(5);
    expect(statuses).toEqual([429]);
  });

  it('an abort during the backoff wait ends the call at once, with no second request', async () => {
    await exhaustWindow(t0 + 1_800_000); // a fresh window: the server asks for a full minute
    const controller = new AbortController();
    const delays: number[] = [];
    const { client, statuses } = countingClient((event) => {
      delays.push(event.delayMs);
      controller.abort();
    });
    await expect(client.GET('/api/v1/users/me', { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(delays[0]).toBeGreaterThanOrEqual(59_000);
    expect(statuses).toEqual([429]);
  });
});

describe('retry decisions', () => {
  const answer = (status: number, retryAfter?: string) =>
    new Response(null, { status, headers: retryAfter ? { 'retry-after': retryAfter } : {} });

  it('retries 429 and 503 of idempotent methods, within the attempts', () => {
    expect(delayBeforeRetry({}, 'GET', 1, answer(503, '2'))).toBe(2000);
    expect(delayBeforeRetry({}, 'DELETE', 1, answer(429, '0'))).toBe(0);
    expect(delayBeforeRetry({}, 'GET', 3, answer(503, '2'))).toBeUndefined();
    expect(delayBeforeRetry({ attempts: 5 }, 'GET', 3, answer(503, '2'))).toBe(2000);
    expect(delayBeforeRetry({}, 'GET', 1, answer(500))).toBeUndefined();
  });

  it('retries POST and PATCH only when opted in', () => {
    expect(delayBeforeRetry({}, 'POST', 1, answer(503, '1'))).toBeUndefined();
    expect(delayBeforeRetry({ methods: 'all' }, 'POST', 1, answer(503, '1'))).toBe(1000);
  });

  it('backs off exponentially without Retry-After, capped by maxDelayMs', () => {
    const first = delayBeforeRetry({ baseDelayMs: 1000 }, 'GET', 1, answer(503))!;
    const second = delayBeforeRetry({ baseDelayMs: 1000 }, 'GET', 2, answer(503))!;
    expect(first).toBeGreaterThanOrEqual(500);
    expect(first).toBeLessThanOrEqual(1000);
    expect(second).toBeGreaterThanOrEqual(1000);
    expect(second).toBeLessThanOrEqual(2000);
    expect(delayBeforeRetry({ baseDelayMs: 1000, maxDelayMs: 300, attempts: 9 }, 'GET', 8, answer(503))).toBe(
      300,
    );
  });
});
