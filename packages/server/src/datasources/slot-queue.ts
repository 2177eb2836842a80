import { QueryCancelledError } from './driver.ts';

/**
 * A bound on the statements a deployment runs at once on an engine spoken over HTTP (Trino,
 * Snowflake), where no connection pool bounds them (issue 24 item 3: a pool per deployment with a
 * bound). Further queries wait in order; the data API's timeout and the client going away (the
 * signal) end a wait without taking a slot.
 */
export class SlotQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  acquire(signal: AbortSignal | undefined): Promise<void> {
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
