import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/database.ts';
import type { ComposedModule } from '../module.ts';
import type { SyncTarget } from './ports.ts';
import { DbtSyncRepository } from './repository.ts';
import { dbtSyncRoutes } from './routes.ts';
import { DbtSyncRunner } from './runner.ts';
import { DbtSyncService } from './service.ts';
import { dbtSyncSweeperPlugin } from './sweeper.ts';

/** dbt sync (issue 25 item 3): jobs that turn a dbt manifest into cubes on a model branch. */
export function composeDbtSync(deps: {
  config: Config;
  db: Db;
  target: SyncTarget;
}): ComposedModule<{ dbtSync: DbtSyncService; dbtSyncRunner: DbtSyncRunner }> {
  const jobs = new DbtSyncRepository(deps.db);
  const runner = new DbtSyncRunner(jobs, deps.target);
  // Background work follows the scheduler's switch, as dashboard exports do (notifications/compose.ts).
  const background = !deps.config.scheduler.disabled;
  const dbtSync = new DbtSyncService({ jobs, target: deps.target, runner, runOnSubmit: background });
  return {
    services: { dbtSync, dbtSyncRunner: runner },
    routes: async (app) => {
      dbtSync.setLogger(app.log);
      await app.register(dbtSyncRoutes, { dbtSync });
      // Orphans are looked for at the scheduler's cadence (TESSERA_SCHEDULER_INTERVAL_MS).
      await app.register(dbtSyncSweeperPlugin, {
        runner,
        enabled: background,
        intervalMs: deps.config.scheduler.intervalMs,
      });
    },
  };
}
