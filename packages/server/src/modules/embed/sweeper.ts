import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { EmbedIdentities } from '../embed-tenants/identities.ts';
import type { EmbedSessionsRepository } from './sessions-repository.ts';

const batch = 500;

/**
 * Removes ephemeral embed users whose lifetime has passed (spec 3) and sessions that can serve no
 * one. It runs in every replica (DESIGN.md "One process, many replicas") and needs no leader:
 * each batch is one DELETE over rows picked with FOR UPDATE SKIP LOCKED, so replicas sweeping at
 * the same moment take different rows and each user is removed once.
 */
export class EmbedSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly deps: {
      users: Pick<EmbedIdentities, 'deleteExpiredUsers'>;
      sessions: EmbedSessionsRepository;
    },
    private readonly intervalMs = 60_000,
  ) {}

  get started(): boolean {
    return this.timer !== null;
  }

  start(log: FastifyBaseLogger): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep()
        .catch((err) => log.warn({ err }, 'embed sweep failed'))
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

  /** One pass: the ids of the users this replica removed, and how many sessions. */
  async sweep(): Promise<{ users: number[]; sessions: number }> {
    const users: number[] = [];
    for (;;) {
      const removed = await this.deps.users.deleteExpiredUsers(batch);
      users.push(...removed);
      if (removed.length < batch) break;
    }
    let sessions = 0;
    for (;;) {
      const removed = await this.deps.sessions.deleteFinished(batch);
      sessions += removed;
      if (removed < batch) break;
    }
    return { users, sessions };
  }
}

/** Starts the sweeper when the application is ready and stops it when it closes. */
export const embedSweeperPlugin: FastifyPluginAsync<{ sweeper: EmbedSweeper }> = async (app, { sweeper }) => {
  app.addHook('onReady', async () => sweeper.start(app.log));
  app.addHook('onClose', () => sweeper.stop());
};
