import { randomBytes } from 'node:crypto';
import { QueryAbandonedError, queryTimeout } from './errors.ts';
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
  /** Requests waiting for it now; the last one leaving early cancels it on the engine. */
  waiters: number;
  /** Callers told "still running" whose repeat may still come (Cube's long polling). */
  holds: number;
  controller: AbortController;
}

/** What a statement is started with: its cancellation, and the id its engine tag names. */
export interface StartContext {
  signal: AbortSignal;
  /** Named in the comment a driver puts ahead of the statement (`query=<id>`), and in the log. */
  queryId: string;
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
 * How long a caller told "still running" counts as waiting: Cube's client repeats the request at
 * once (@cubejs-client/core `continueWait`), so a repeat that has not come by then never will.
 */
const repeatGraceMs = 15_000;

/**
 * Runs compiled queries once per key (compiled SQL + params + security context):
 * - a result cache with a freshness interval per query (refresh keys, see refresh.ts);
 * - in-flight sharing: identical requests, including a client's repeat after "Continue wait"
 *   (Cube's long-polling, @cubejs-client/core re-sends the same request), join the same
 *   execution instead of starting another;
 * - a timeout that cancels the engine query through its AbortSignal;
 * - cancellation when every request waiting for an execution has gone (their `signal`s aborted:
 *   the HTTP client closed the connection, routes.ts): the engine stops the statement, and only
 *   then, so that one client leaving never cancels rows another still waits for (issue 24 item 3);
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
    start: (context: StartContext) => Promise<Omit<QueryResult, 'refreshedAt'>>,
    signal?: AbortSignal,
  ): Promise<Outcome<QueryResult>> {
    if (!options.renew) {
      const hit = this.cache.get(key);
      if (hit && hit.freshUntil > Date.now()) return done(hit.result);
    }
    let execution = this.inflight.get(key);
    if (execution?.settled && execution.expiresAt < Date.now()) execution = undefined;
    if (execution?.settled) this.inflight.delete(key);
    // one being cancelled because its waiters left is no execution to join: start another
    if (execution?.controller.signal.reason instanceof QueryAbandonedError) execution = undefined;
    execution ??= this.start(key, options, start);

    let timer: NodeJS.Timeout | undefined;
    const window = new Promise<typeof stillRunning>((resolve) => {
      timer = setTimeout(() => resolve(stillRunning), this.settings.continueWaitMs);
    });
    const leave = this.join(execution, signal);
    try {
      const first = await Promise.race([execution.promise, window, leave.gone]);
      if (first !== stillRunning) return done(first);
      execution.abandoned = true;
      this.hold(execution);
      const found = execution;
      return { state: 'running', wait: () => this.waitFor(found, signal) };
    } finally {
      clearTimeout(timer);
      leave.done();
    }
  }

  /** The result of a running execution, this caller waiting for it until it ends or leaves. */
  private async waitFor(execution: Execution, signal: AbortSignal | undefined): Promise<QueryResult> {
    const leave = this.join(execution, signal);
    try {
      return await Promise.race([execution.promise, leave.gone]);
    } finally {
      leave.done();
    }
  }

  /**
   * Counts a caller as waiting for `execution` until `done()`; its signal aborting (the client went
   * away) ends its wait at once (`gone` rejects) and, if it was the last one, cancels the engine
   * query. A caller without a signal (an in-process one) waits until the end.
   */
  private join(execution: Execution, signal: AbortSignal | undefined) {
    execution.waiters++;
    let left = false;
    let reject: (error: Error) => void = () => undefined;
    const gone = new Promise<never>((_resolve, fail) => {
      reject = fail;
    });
    const onAbort = () => {
      reject(new QueryAbandonedError());
      leave();
    };
    gone.catch(() => undefined);
    const leave = () => {
      if (left) return;
      left = true;
      signal?.removeEventListener('abort', onAbort);
      execution.waiters--;
      this.cancelIfAbandoned(execution);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return { gone, done: leave };
  }

  /** A caller told "still running": its repeat counts as waiting for a while (`repeatGraceMs`). */
  private hold(execution: Execution) {
    execution.holds++;
    setTimeout(() => {
      execution.holds--;
      this.cancelIfAbandoned(execution);
    }, repeatGraceMs).unref();
  }

  private cancelIfAbandoned(execution: Execution) {
    if (execution.settled || execution.waiters > 0 || execution.holds > 0) return;
    if (!execution.controller.signal.aborted) execution.controller.abort(new QueryAbandonedError());
  }

  private start(
    key: string,
    options: { renew: boolean; freshMs: number },
    run: (context: StartContext) => Promise<Omit<QueryResult, 'refreshedAt'>>,
  ): Execution {
    this.sweep();
    const controller = new AbortController();
    const timeoutMs = this.settings.queryTimeoutMs;
    const timeout = setTimeout(() => controller.abort(), timeoutMs);
    const timedOut = () => queryTimeout(`Query timeout after ${Math.round(timeoutMs / 1000)} s`);
    // Why it was cancelled: its waiters left (the reason says so), or else it timed out.
    const cancelled = () =>
      controller.signal.reason instanceof QueryAbandonedError ? controller.signal.reason : timedOut();
    const engine = () => {
      this.executions++;
      const queryId = randomBytes(6).toString('hex');
      // the timeout named here already, so that replicas waiting for this execution are told so
      return run({ signal: controller.signal, queryId }).then(
        (r) => ({ ...r, refreshedAt: new Date() }),
        (error) => {
          throw controller.signal.aborted ? cancelled() : error;
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
      waiters: 0,
      holds: 0,
      controller,
      promise: produced
        .then((hit) => {
          freshUntil = hit.freshUntil;
          return hit.result;
        })
        .catch((error) => {
          throw controller.signal.aborted ? cancelled() : error;
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
        // cancelled because nobody waits: no repeat would want its error
        const gone = controller.signal.reason instanceof QueryAbandonedError;
        if (execution.abandoned && !gone) execution.expiresAt = Date.now() + pickupMs;
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
