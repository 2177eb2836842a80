import type { FastifyBaseLogger } from 'fastify';
import type { RedisFanout, RunKey, RunMessage } from './fanout.ts';
import type { ChatRepository } from './repository.ts';

/** How often a response following a run of another replica looks for new lines in the store. */
const STORE_POLL_MS = 200;

/**
 * A run executing in this process (DESIGN.md "Chat agent"): its lines so far, in memory beside
 * the store's log, and the readers following it. A reader that disconnects stops reading; the
 * run goes on.
 */
export class LiveRun {
  readonly lines: string[] = [];
  readonly controller = new AbortController();
  /** Why the run was stopped early: the abort endpoint, or this process shutting down. */
  stopReason: 'abort' | 'suspend' | undefined;
  /** This process is shutting down: the run stops at its next step boundary (turn.ts). */
  pauseRequested = false;
  private ended = false;
  private wake = new Set<() => void>();

  /** `lines`: the log so far, when a suspended run resumes. */
  constructor(
    readonly runId: number,
    lines: readonly string[] = [],
    readonly threadId = '',
  ) {
    this.lines.push(...lines);
  }

  requestPause(): void {
    this.pauseRequested = true;
    this.stopReason ??= 'suspend';
  }

  push(line: string): void {
    this.lines.push(line);
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  stop(reason: 'abort' | 'suspend'): void {
    this.stopReason ??= reason;
    this.controller.abort(new Error(`chat run ${reason}`));
  }

  /** Every line from the first, then each new one as it comes, until the run ends. */
  async *follow(signal: AbortSignal): AsyncGenerator<string, void> {
    let next = 0;
    while (!signal.aborted) {
      while (next < this.lines.length) yield this.lines[next++];
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.wake.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.wake.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private notify(): void {
    for (const wake of [...this.wake]) wake();
  }
}

/**
 * The runs executing in this process, and following any run: from memory when it runs here,
 * else from the store's log, then live through Redis when REDIS_URL is set (fanout.ts), or by
 * polling the store.
 */
export class LiveRuns {
  private readonly runs = new Map<number, LiveRun>();

  constructor(
    private readonly repository: ChatRepository,
    private readonly fanout?: RedisFanout,
  ) {
    fanout?.onStop((key) => {
      const run = this.runs.get(key.runId);
      if (run?.threadId === key.threadId) run.stop('abort');
    });
  }

  async connect(log: FastifyBaseLogger): Promise<void> {
    if (!this.fanout) return;
    try {
      await this.fanout.connect(log);
    } catch (err) {
      // the clients keep reconnecting; followers re-read the store when Redis is back
      log.error({ err }, 'chat fan-out: Redis is not reachable at start');
    }
  }

  async close(): Promise<void> {
    await this.fanout?.close();
  }

  start(key: RunKey, lines: readonly string[] = []): LiveRun {
    const run = new LiveRun(key.runId, lines, key.threadId);
    this.runs.set(key.runId, run);
    return run;
  }

  /** A line of a run of this process, once stored: to its readers here and on other replicas. */
  push(run: LiveRun, seq: number, line: string): void {
    run.push(line);
    this.fanout?.publish({ threadId: run.threadId, runId: run.runId }, { seq, line });
  }

  finish(run: LiveRun): void {
    run.end();
    this.runs.delete(run.runId);
    this.fanout?.publish({ threadId: run.threadId, runId: run.runId }, { end: true });
  }

  /** Lines another replica's sweeper wrote to a run it found dead, and its end (service.ts). */
  announce(key: RunKey, lines: readonly { seq: number; line: string }[]): void {
    for (const { seq, line } of lines) this.fanout?.publish(key, { seq, line });
    this.fanout?.publish(key, { end: true });
  }

  get(runId: number): LiveRun | undefined {
    return this.runs.get(runId);
  }

  active(): LiveRun[] {
    return [...this.runs.values()];
  }

  /**
   * The abort endpoint: a run of this process stops now; another replica's is flagged in the
   * store (its process looks at each lease renewal) and, with Redis, told at once.
   */
  async requestStop(key: RunKey): Promise<void> {
    const local = this.runs.get(key.runId);
    if (local) {
      local.stop('abort');
      return;
    }
    await this.repository.requestStop(key.runId);
    await this.fanout?.requestStop(key);
  }

  /** A run's lines from the first, then as they come, until it ends. */
  async *follow(key: RunKey, signal: AbortSignal): AsyncGenerator<string, void> {
    const local = this.runs.get(key.runId);
    if (local) {
      yield* local.follow(signal);
      return;
    }
    yield* this.fanout ? this.followPublished(key, this.fanout, signal) : this.followStore(key, signal);
  }

  /** Another replica's run, through Redis: the stored log, then what is published, gaps read again. */
  private async *followPublished(
    key: RunKey,
    fanout: RedisFanout,
    signal: AbortSignal,
  ): AsyncGenerator<string, void> {
    const queue: RunMessage[] = [];
    let wake: (() => void) | undefined;
    let resync = false;
    const notify = () => {
      wake?.();
      wake = undefined;
    };
    // subscribed before the log is read: a line stored after the read is published after it too
    const leave = await fanout.subscribe(key, (message) => {
      queue.push(message);
      notify();
    });
    const offResync = fanout.onResync(() => {
      resync = true;
      notify();
    });
    signal.addEventListener('abort', notify);
    let next = 0;
    const repository = this.repository;
    /** The stored lines from `next`; whether the run still runs (read before the lines). */
    async function* catchUp(): AsyncGenerator<string, boolean> {
      const running = (await repository.run(key.runId))?.status === 'running';
      for (const row of await repository.lines(key.runId, next)) {
        next = row.seq + 1;
        yield row.line;
      }
      return running;
    }
    try {
      if (!(yield* catchUp())) return;
      while (!signal.aborted) {
        const message = queue.shift();
        if (message === undefined) {
          if (resync) {
            resync = false;
            if (!(yield* catchUp())) return;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          continue;
        }
        if ('end' in message) {
          yield* catchUp();
          return;
        }
        if (message.seq > next && !(yield* catchUp())) return;
        if (message.seq === next) {
          next++;
          yield message.line;
        }
      }
    } finally {
      signal.removeEventListener('abort', notify);
      offResync();
      leave();
    }
  }

  /** Another replica's run without Redis: the store's log, read again every STORE_POLL_MS. */
  private async *followStore(key: RunKey, signal: AbortSignal): AsyncGenerator<string, void> {
    const { runId } = key;
    let seq = 0;
    while (!signal.aborted) {
      const status = (await this.repository.run(runId))?.status;
      for (const row of await this.repository.lines(runId, seq)) {
        seq = row.seq + 1;
        yield row.line;
      }
      if (status !== 'running') return;
      const here = this.runs.get(runId);
      if (here) {
        // restarted in this process meanwhile: continue from memory past what was read
        let i = 0;
        for await (const line of here.follow(signal)) if (i++ >= seq) yield line;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, STORE_POLL_MS));
    }
  }
}
