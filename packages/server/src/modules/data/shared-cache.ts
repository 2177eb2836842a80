import { createHash, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { DataApiError, QueryAbandonedError } from './errors.ts';

/** A result as the executor keeps it (executor.ts QueryResult), and until when it counts as fresh. */
export interface SharedHit<R = unknown> {
  result: R;
  freshUntil: number;
}

export interface SharedCacheSettings {
  /** How long a lock lives without renewal: a replica that died holding one is replaced after this. */
  lockMs: number;
}

/** Results larger than this stay in the replica that ran them (Redis is not a bulk store). */
const maxSharedBytes = 16 * 1024 * 1024;

// Compare-and-delete / compare-and-extend: a replica only ever releases or extends its own lock
// (the token), never one another replica took after its own expired.
const RELEASE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const EXTEND =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

/** What the replica running a query tells the others when it ends. */
type DoneMessage =
  | { k: string; t: string; s: 'ok' }
  | { k: string; t: string; s: 'gone' }
  | { k: string; t: string; s: 'error'; code: string | null; message: string };

/** Redis failed: the caller runs the query locally instead. */
class RedisUnavailable extends Error {}
const unavailable = (cause: unknown) => new RedisUnavailable('Redis failed', { cause });
/** A Redis command whose failure is Redis being unavailable, never the query failing. */
const redis = <T>(command: Promise<T>): Promise<T> =>
  command.catch((err) => {
    throw unavailable(err);
  });

type Waiter = (message: DoneMessage) => void;

/**
 * The second level of the query executor across replicas when REDIS_URL is set (DESIGN.md "One
 * process, many replicas", "Chosen libraries": ioredis, as the chat fan-out):
 * - results stored under a hash of the executor's key, with the query's freshness as TTL;
 * - one execution per key across replicas: the replica that starts a query holds a lock
 *   (SET NX PX with a random token, extended while the query runs, released by compare-and-delete)
 *   and publishes the end of it; the others wait for that (pub/sub, with the lock polled with
 *   backoff in case a message is missed) and read the stored result, or rethrow the shared error.
 *   A lock that disappears without a result (its replica died or shut down) lets a waiter run the
 *   query itself.
 * Redis is an optimisation, never a dependency: while it cannot be reached, queries run locally
 * (logged once per outage).
 */
export class SharedResults {
  private readonly client: Redis;
  private readonly sub: Redis;
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** Locks this replica holds: released (and waiters told) when it shuts down. */
  private readonly held = new Map<string, { k: string; token: string }>();
  private connecting: Promise<void> | null = null;
  private log: FastifyBaseLogger | undefined;
  private down = false;
  private closed = false;

  /** `<TESSERA_REDIS_PREFIX>:query:v1`: installations sharing one Redis keep apart. */
  private readonly prefix: string;
  private readonly doneChannel: string;

  constructor(
    url: string,
    readonly settings: SharedCacheSettings = { lockMs: 10_000 },
    namespace = 'tessera',
  ) {
    this.prefix = `${namespace}:query:v1`;
    this.doneChannel = `${this.prefix}:done`;
    // No offline queue and one attempt per command: while Redis is unreachable a command fails at
    // once and the query runs locally, instead of waiting for a reconnection.
    const options = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      commandTimeout: 2_000,
    };
    this.client = new Redis(url, options);
    this.sub = new Redis(url, { ...options, commandTimeout: undefined });
    this.sub.on('message', (_channel: string, text: string) => this.receive(text));
    for (const c of [this.client, this.sub]) {
      c.on('error', (err: Error) => this.failed(err));
      c.on('ready', () => {
        if (this.down && this.client.status === 'ready') this.log?.info('query cache: Redis reachable again');
        if (this.client.status === 'ready') this.down = false;
      });
    }
  }

  /** Opens the connections (at application start); an unreachable Redis is logged, not thrown. */
  connect(log?: FastifyBaseLogger): Promise<void> {
    if (log) this.log = log;
    this.connecting ??= (async () => {
      // the subscriber subscribes again by itself after a reconnection (ioredis)
      await Promise.all([
        this.client.connect(),
        this.sub.connect().then(() => this.sub.subscribe(this.doneChannel)),
      ]);
    })().catch((err) => this.failed(err));
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    // Shutting down with queries running: hand them over now rather than at lock expiry.
    await Promise.all(
      [...this.held.entries()].map(([lock, { k, token }]) => this.release(lock, k, token, 'gone')),
    ).catch(() => undefined);
    await Promise.all([this.client, this.sub].map((c) => c.quit().catch(() => c.disconnect())));
  }

  /**
   * The result of `key`: a stored fresh one (unless `renew`), the one another replica is running,
   * or the one `engine` computes under this replica's lock. Without Redis, `engine` alone.
   */
  async run<R>(
    key: string,
    options: { renew: boolean; freshMs: number },
    signal: AbortSignal,
    engine: () => Promise<R>,
  ): Promise<SharedHit<R>> {
    const local = async () => ({ result: await engine(), freshUntil: Date.now() + options.freshMs });
    await this.connect();
    if (!this.usable()) return local();
    const k = createHash('sha256').update(key).digest('hex');
    const lock = `${this.prefix}:lock:${k}`;
    /** The execution this request joined: its result is the renewed one. */
    let joined: string | null = null;
    try {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        if (!options.renew || joined) {
          const hit = await this.read<R>(k);
          if (hit && (!options.renew || hit.token === joined)) return hit;
        }
        const token = randomUUID();
        if (await redis(this.client.set(lock, token, 'PX', this.settings.lockMs, 'NX')))
          return await this.hold(lock, k, token, options.freshMs, engine);
        const holder = await redis(this.client.get(lock));
        if (holder === null) continue; // released just now: read or take it again
        joined = holder;
        const end = await this.waitFor(lock, k, holder, signal);
        if (end.s === 'error') throw sharedError(end);
        // 'ok': the stored result is read above; 'gone': its replica died or left, take over
      }
    } catch (error) {
      if (!(error instanceof RedisUnavailable)) throw error;
      this.failed(error.cause);
      return local();
    }
  }

  /** Runs the query under the lock, stores the result and tells the waiting replicas. */
  private async hold<R>(
    lock: string,
    k: string,
    token: string,
    freshMs: number,
    engine: () => Promise<R>,
  ): Promise<SharedHit<R>> {
    this.held.set(lock, { k, token });
    const every = Math.max(50, Math.floor(this.settings.lockMs / 3));
    const extend = setInterval(() => {
      this.client.eval(EXTEND, 1, lock, token, this.settings.lockMs).catch((err) => this.failed(err));
    }, every);
    let result: R;
    try {
      result = await engine();
    } catch (error) {
      clearInterval(extend);
      // cancelled because this replica's requests all left: a replica still waiting runs it itself
      await this.release(lock, k, token, error instanceof QueryAbandonedError ? 'gone' : 'error', error);
      throw error;
    }
    clearInterval(extend);
    const freshUntil = Date.now() + freshMs;
    let stored = false;
    try {
      const text = encode({ token, freshUntil, result });
      if (text.length <= maxSharedBytes) {
        await this.client.set(`${this.prefix}:result:${k}`, text, 'PX', freshMs);
        stored = true;
      }
    } catch (err) {
      // unshareable values or Redis failing: the result is this replica's only
      if (!(err instanceof TypeError)) this.failed(err);
    }
    await this.release(lock, k, token, stored ? 'ok' : 'gone');
    return { result, freshUntil };
  }

  /** Drops the lock if it is still ours, then tells the waiters how the execution ended. */
  private async release(lock: string, k: string, token: string, s: DoneMessage['s'], error?: unknown) {
    if (this.held.get(lock)?.token !== token) return;
    this.held.delete(lock);
    const message: DoneMessage =
      s === 'error' ? { k, t: token, s, ...shareable(error) } : { k, t: token, s: s as 'ok' | 'gone' };
    try {
      await this.client.eval(RELEASE, 1, lock, token);
      await this.client.publish(this.doneChannel, JSON.stringify(message));
    } catch (err) {
      // the lock then expires by itself and a waiter takes over
      this.failed(err);
    }
  }

  /**
   * Until the execution `holder` ends: its message, or its lock gone or taken by another (polled
   * with backoff, so a missed message or a dead replica costs at most one interval).
   */
  private waitFor(lock: string, k: string, holder: string, signal: AbortSignal): Promise<DoneMessage> {
    return new Promise<DoneMessage>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let delay = 20;
      const set = this.waiters.get(k) ?? new Set<Waiter>();
      this.waiters.set(k, set);
      const finish = (end: () => void) => {
        clearTimeout(timer);
        set.delete(waiter);
        if (set.size === 0 && this.waiters.get(k) === set) this.waiters.delete(k);
        signal.removeEventListener('abort', onAbort);
        end();
      };
      const waiter: Waiter = (message) => {
        if (message.t === holder) finish(() => resolve(message));
      };
      const onAbort = () => finish(() => reject(signal.reason));
      const poll = () => {
        this.client.get(lock).then(
          (current) => {
            if (current !== holder) finish(() => resolve({ k, t: holder, s: 'gone' }));
            else schedule();
          },
          (err) => finish(() => reject(unavailable(err))),
        );
      };
      const schedule = () => {
        delay = Math.min(delay * 2, 500);
        timer = setTimeout(poll, delay);
      };
      set.add(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
      schedule();
    });
  }

  private async read<R>(k: string): Promise<(SharedHit<R> & { token: string }) | null> {
    const text = await redis(this.client.get(`${this.prefix}:result:${k}`));
    if (text === null) return null;
    try {
      return decode(text) as SharedHit<R> & { token: string };
    } catch {
      return null; // written by another version: run instead
    }
  }

  private receive(text: string) {
    try {
      const message = JSON.parse(text) as DoneMessage;
      for (const waiter of [...(this.waiters.get(message.k) ?? [])]) waiter(message);
    } catch (err) {
      this.log?.warn({ err }, 'query cache: unreadable message');
    }
  }

  private usable(): boolean {
    return !this.closed && this.client.status === 'ready';
  }

  /** Logs the first failure of an outage only: every query would otherwise log it again. */
  private failed(err: unknown) {
    if (this.down || this.closed) return;
    this.down = true;
    this.log?.warn(
      { err },
      'query cache: Redis unreachable, queries run on this replica alone until it is back',
    );
  }
}

/** What of an error the waiting replicas may rethrow: a data-API error as it is, anything else as a 500. */
function shareable(error: unknown): { code: string | null; message: string } {
  return error instanceof DataApiError
    ? { code: error.code, message: error.message }
    : { code: null, message: 'The query failed' };
}

function sharedError(end: { code: string | null; message: string }): Error {
  // A 5xx never carries internals: the other replica logged the cause.
  if (end.code === null) return new Error(end.message);
  try {
    return new DataApiError(end.code as never, end.message);
  } catch {
    return new Error('The query failed'); // a code this version does not know
  }
}

/*
 * Rows as JSON with the values JSON cannot carry tagged: bigint (DuckDB counts), Date, binary.
 * A value of any other class is refused (TypeError): the result then stays local.
 */
const TAG = '$tessera';

export function encode(value: unknown): string {
  return JSON.stringify(tagged(value));
}

function tagged(value: unknown): unknown {
  switch (typeof value) {
    case 'bigint':
      return { [TAG]: 'bigint', v: value.toString() };
    case 'number':
      return Number.isFinite(value) ? value : { [TAG]: 'number', v: String(value) };
    case 'string':
    case 'boolean':
      return value;
    case 'undefined':
      return null;
    case 'object': {
      if (value === null) return null;
      if (value instanceof Date) return { [TAG]: 'date', v: value.getTime() };
      if (value instanceof Uint8Array) return { [TAG]: 'bytes', v: Buffer.from(value).toString('base64') };
      if (Array.isArray(value)) return value.map(tagged);
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw new TypeError('unshareable value');
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = tagged(v);
      // an object of the rows' own that looks like a tag is wrapped, so that it reads back as it was
      return TAG in out ? { [TAG]: 'object', v: out } : out;
    }
    default:
      throw new TypeError('unshareable value');
  }
}

export function decode(text: string): unknown {
  return untagged(JSON.parse(text));
}

function untagged(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untagged);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (TAG in o) {
    switch (o[TAG]) {
      case 'bigint':
        return BigInt(o.v as string);
      case 'number':
        return Number(o.v);
      case 'date':
        return new Date(o.v as number);
      case 'bytes':
        return Buffer.from(o.v as string, 'base64');
      case 'object': {
        const inner = o.v as Record<string, unknown>;
        return Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, untagged(v)]));
      }
      default:
        throw new TypeError('unknown tag');
    }
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, untagged(v)]));
}
