import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/database.ts';
import type { App } from '../../http/types.ts';
import { DeploymentsRepository } from '../deployments/repository.ts';
import { syncModelDir } from './model-dir.ts';
import { logSync, watchModelDir } from './model-dir-watcher.ts';

/**
 * `TESSERA_MODEL_DIR` (issue 4): at start the demo deployment's `main` files become the
 * directory's; in development a watcher keeps them in sync until the app closes.
 */
export async function registerModelDir(app: App, config: Config, db: Db): Promise<void> {
  const dir = config.modelDir;
  if (!dir) return;
  const deploymentId = await new DeploymentsRepository(db).demoDeploymentId();
  if (deploymentId === null) {
    app.log.warn({ dir }, 'TESSERA_MODEL_DIR is set but there is no demo deployment; ignoring it');
    return;
  }
  logSync(app.log, dir, await syncModelDir(db, deploymentId, dir), true);
  if (config.env !== 'development') return;
  const watcher = watchModelDir(db, deploymentId, dir, app.log);
  app.addHook('onClose', () => watcher.close());
  app.log.info({ dir, deploymentId }, 'watching the model directory for changes');
}
