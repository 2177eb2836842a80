import { queryTimeout } from './errors.ts';
import { done, type Outcome } from './outcome.ts';
import type { SharedHit, SharedResults } from './shared-cache.ts';

/** What one compiled query produced, as cached and shared between identical requests. */
export interface QueryResult {
  rows: Record<string, unknown>[];
  total: number | null;
  /** When the engine answered (Cube's `lastRefreshTime`). */
  refreshedAt: Date;
}

interface Execution {
  promise: Promise<QueryResult>;
  settled: boolean;
  /** A caller was told "still running": keep the result for its repeat even after settling. */
  abandoned: boolean;
  expiresAt: number;
}

export interface ExecutorSettings {
  /** Cancel the engine query after this long (TESSERA_QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number;
  /** Answer "still running" (Cube's `{"error": "Continue wait"}`) after this long (TESSERA_CONTINUE_WAIT_MS). */
  continueWaitMs: number;
}

/** How long a finished result waits for the repeat of a request that was told "still running". */
const pickupMs = 60_000;
const stillRunning = Symbol('still running');
const maxCached = 5_000;

/**
 * Runs compiled queries once per key (compiled SQL + params + security context):
 * - a result cache with a freshness interval per query (refresh keys, see refresh.ts);
 * - in-flight sharing: identical requests, including a client's repeat after "Continue wait"
 *   (Cube's long-polling, @cubejs-client/core re-sends the same request), join the same
 *   execution instead of starting another;
 * - a timeout that cancels the engine query through its AbortSignal;
 * - with REDIS_URL, a second level shared by the replicas (shared-cache.ts): their results, and one
 *   execution per key across all of them.
 */
export class QueryExecutor {
  private readonly inflight = new Map<string, Execution>();
  private readonly cache = new Map<string, { result: QueryResult; freshUntil: number }>();
  /** Engine executions started; lets tests and metrics see that repeats share one execution. */
  executions = 0;

  constructor(
    readonly settings: ExecutorSettings,
    private readonly shared?: SharedResults,
  ) {}

  /**
   * The result, or "running" when it is not ready within `continueWaitMs`; the execution carries
   * on, `wait()` awaits it, and the next call with the same key picks it up.
   */
  async run(
    key: string,
    options: { renew: boolean; freshMs: number },
    start: (signal: AbortSignal) => Promise<Omit<QueryResult, 'refreshedAt'>>,
  ): Promise<Outcome<QueryResult>> {
    if (!options.renew) {
      const hit = this.cache.get(key);
      if (hit && hit.freshUntil > Date.now()) return done(hit.result);
    }
    let execution = this.inflight.get(key);
    if (execution?.settled && execution.expiresAt < Date.now()) execution = undefined;
    if (execution?.settled) this.inflight.delete(key);
    execution ??= this.start(key, options, start);

    let timer: NodeJS.Timeout | undefined;
    const window = new Promise<typeof stillRunning>((resolve) => {
      timer = setTimeout(() => resolve(stillRunning), this.settings.continueWaitMs);
    });
    try {
      const first = await Promise.race([execution.promise, window]);
      if (first !== stillRunning) return done(first);
      execution.abandoned = true;
      const { promise } = execution;
      return { state: 'running', wait: () => promise };
    } finally {
      clearTimeout(timer);
    }
  }

  private start(
    key: string,
    options: { renew: boolean; freshMs: number },
    run: (signal: AbortSignal) => Promise<Omit<QueryResult, 'refreshedAt'>>,
  ): Execution {
    this.sweep();
    const controller = new AbortController();
    const timeoutMs = this.settings.queryTimeoutMs;
    const timeout = setTimeout(() => controller.abort(), timeoutMs);
    const timedOut = () => queryTimeout(`Query timeout after ${Math.round(timeoutMs / 1000)} s`);
    const engine = () => {
      this.executions++;
      // the timeout named here already, so that replicas waiting for this execution are told so
      return run(controller.signal).then(
        (r) => ({ ...r, refreshedAt: new Date() }),
        (error) => {
          throw controller.signal.aborted ? timedOut() : error;
        },
      );
    };
    // The timeout covers waiting for another replica's execution too (and taking it over).
    const produced: Promise<SharedHit<QueryResult>> = this.shared
      ? this.shared.run(key, options, controller.signal, engine)
      : engine().then((result) => ({ result, freshUntil: Date.now() + options.freshMs }));
    let freshUntil = 0;
    const execution: Execution = {
      settled: false,
      abandoned: false,
      expiresAt: Number.POSITIVE_INFINITY,
      promise: produced
        .then((hit) => {
          freshUntil = hit.freshUntil;
          return hit.result;
        })
        .catch((error) => {
          throw controller.signal.aborted ? timedOut() : error;
        }),
    };
    execution.promise.then(
      (result) => {
        if (this.cache.size >= maxCached) this.cache.clear();
        this.cache.set(key, { result, freshUntil });
      },
      () => undefined,
    );
    execution.promise
      .finally(() => {
        clearTimeout(timeout);
        execution.settled = true;
        if (execution.abandoned) execution.expiresAt = Date.now() + pickupMs;
        else if (this.inflight.get(key) === execution) this.inflight.delete(key);
      })
      .catch(() => undefined);
    this.inflight.set(key, execution);
    return execution;
  }

  /** Drops finished results that nobody came back for. */
  private sweep() {
    const now = Date.now();
    for (const [key, e] of this.inflight) if (e.settled && e.expiresAt < now) this.inflight.delete(key);
  }

  clear(): void {
    this.cache.clear();
  }
}
