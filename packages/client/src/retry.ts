/**
 * Retries of answers that say "try again later": 429 (RFC 6585 section 4) and 503 (RFC 9110
 * section 15.6.4), waiting what `Retry-After` asks (RFC 9110 section 10.2.3: seconds or an HTTP
 * date) or else an exponential backoff. Only idempotent methods (RFC 9110 section 9.2.2) are
 * retried unless the caller opts in, since a POST that timed out on its way back may have happened.
 */

export interface RetryOptions {
  /** Attempts in all, the first included; default 3. */
  attempts?: number;
  /** First backoff wait when the answer has no Retry-After; it doubles per attempt. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait; an answer asking for longer is returned as it is. Default 60 s. */
  maxDelayMs?: number;
  /** Statuses that are retried; default 429 and 503. */
  statuses?: readonly number[];
  /** `idempotent` (default: GET, HEAD, OPTIONS, PUT, DELETE) or `all` to retry POST and PATCH too. */
  methods?: 'idempotent' | 'all';
  /** Called before each wait, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  response: Response;
  request: Request;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);
const DEFAULTS = { attempts: 3, baseDelayMs: 500, maxDelayMs: 60_000, statuses: [429, 503] };

/** Milliseconds a `Retry-After` value asks for, or undefined when it is absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter in [half, full] of the step, so that clients spread out. */
export function backoffMs(attempt: number, baseDelayMs: number, random = Math.random): number {
  const step = baseDelayMs * 2 ** (attempt - 1);
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * How long to wait before attempt `attempt + 1`, or undefined when the answer is final: not a
 * retried status, attempts used up, a method not retried, or a Retry-After beyond `maxDelayMs`.
 */
export function delayBeforeRetry(
  options: RetryOptions,
  method: string,
  attempt: number,
  response: Response,
): number | undefined {
  const attempts = options.attempts ?? DEFAULTS.attempts;
  const statuses = options.statuses ?? DEFAULTS.statuses;
  const maxDelayMs = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  if (!statuses.includes(response.status) || attempt >= attempts) return undefined;
  if (options.methods !== 'all' && !IDEMPOTENT.has(method.toUpperCase())) return undefined;
  const asked = retryAfterMs(response.headers.get('retry-after'));
  if (asked !== undefined) return asked <= maxDelayMs ? asked : undefined;
  return Math.min(maxDelayMs, backoffMs(attempt, options.baseDelayMs ?? DEFAULTS.baseDelayMs));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
