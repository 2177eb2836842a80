import type { FastifyPluginAsync } from 'fastify';
import type { DbtSyncRunner } from './runner.ts';

/**
 * Takes over dbt sync jobs nobody runs (their replica died before or while running them; a
 * runner's lease is runner.ts `leaseMs`), in every replica, with no leader: a job is claimed with
 * FOR UPDATE SKIP LOCKED. Off where background work is off (TESSERA_SCHEDULER_DISABLED), as the
 * notification scheduler is.
 */
export const dbtSyncSweeperPlugin: FastifyPluginAsync<{
  runner: DbtSyncRunner;
  enabled: boolean;
  intervalMs?: number;
}> = async (app, { runner, enabled, intervalMs = 30_000 }) => {
  if (!enabled) return;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  app.addHook('onReady', async () => {
    timer = setInterval(() => {
      if (running) return;
      running = runner
        .work()
        .catch((err) => app.log.warn({ err }, 'dbt sync sweep failed'))
        .finally(() => {
          running = null;
        });
    }, intervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await running;
  });
};
