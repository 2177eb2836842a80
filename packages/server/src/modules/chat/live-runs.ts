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

/** The runs executing in this process, and reading any run's log from the store. */
export class LiveRuns {
  private readonly runs = new Map<number, LiveRun>();

  constructor(private readonly repository: ChatRepository) {}

  start(runId: number, lines: readonly string[] = []): LiveRun {
    const run = new LiveRun(runId, lines);
    this.runs.set(runId, run);
    return run;
  }

  finish(run: LiveRun): void {
    run.end();
    this.runs.delete(run.runId);
  }

  get(runId: number): LiveRun | undefined {
    return this.runs.get(runId);
  }

  active(): LiveRun[] {
    return [...this.runs.values()];
  }

  /**
   * A run's lines from the first: from memory while it executes here, else from the store's log,
   * followed (by polling) while another replica still runs it.
   */
  async *follow(runId: number, signal: AbortSignal): AsyncGenerator<string, void> {
    const local = this.runs.get(runId);
    if (local) {
      yield* local.follow(signal);
      return;
    }
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
