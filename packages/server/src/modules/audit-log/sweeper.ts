import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { AuditLogRepository } from './repository.ts';

const batch = 1000;

/**
 * Deletes audit entries older than their tenant's retention (tenant settings
 * `auditLogRetentionDays`, issue 22 item 4). Like the embed sweeper (modules/embed/sweeper.ts) it
 * runs in every replica and needs no leader: each batch is one DELETE over rows picked with
 * FOR UPDATE SKIP LOCKED, so replicas sweeping at once take different rows.
 */
export class AuditLogSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly repository: Pick<AuditLogRepository, 'deleteExpired'>,
    private readonly intervalMs = 5 * 60_000,
  ) {}

  get started(): boolean {
    return this.timer !== null;
  }

  start(log: FastifyBaseLogger): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep()
        .catch((err) => log.warn({ err }, 'audit log sweep failed'))
        .finally(() => {
          this.running = null;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress, so that the store can close after it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass: how many entries this replica deleted. */
  async sweep(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const removed = await this.repository.deleteExpired(batch);
      deleted += removed;
      if (removed < batch) return deleted;
    }
  }
}

/** Starts the sweeper when the application is ready and stops it when it closes. */
export const auditLogSweeperPlugin: FastifyPluginAsync<{ sweeper: AuditLogSweeper }> = async (
  app,
  { sweeper },
) => {
  app.addHook('onReady', async () => sweeper.start(app.log));
  app.addHook('onClose', () => sweeper.stop());
};
