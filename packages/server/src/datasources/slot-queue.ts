import { QueryCancelledError } from './driver.ts';

/**
 * A bound on the statements one deployment runs on a remote engine at once (issue 24 item 3): the
 * HTTP drivers (Trino, Snowflake, Athena) hold no connection to pool, so a slot stands for one.
 * Waiters are served in arrival order; the data API's timeout and the client going away (the
 * signal) bound the wait, and a cancelled waiter leaves the queue.
 */
export class SlotQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new QueryCancelledError('Query cancelled'));
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', leave);
        this.running++;
        resolve();
      };
      const leave = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new QueryCancelledError('Query cancelled'));
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(go);
    });
  }

  release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}
