import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.ts';
import { syncModelDir } from './model-dir.ts';
import { logSync, watchModelDir } from './model-dir-watcher.ts';
import type { DemoDeployment } from './ports.ts';

export interface ModelDirOptions {
  /** TESSERA_MODEL_DIR; nothing happens when it is unset. */
  dir: string | null;
  /** Keep the files in sync while the app runs (development only). */
  watch: boolean;
  /** Each sync writes in a transaction of its own (model-dir.ts). */
  db: Db;
  deployments: DemoDeployment;
}

/**
 * `TESSERA_MODEL_DIR`: at start the demo deployment's `main` files become the
 * directory's; in development a watcher keeps them in sync until the app closes.
 */
export const modelDirPlugin: FastifyPluginAsyncTypebox<ModelDirOptions> = async (
  app,
  { dir, watch, db, deployments },
) => {
  if (!dir) return;
  const deploymentId = await deployments.demoDeploymentId();
  if (deploymentId === null) {
    app.log.warn({ dir }, 'TESSERA_MODEL_DIR is set but there is no demo deployment; ignoring it');
    return;
  }
  logSync(app.log, dir, await syncModelDir(db, deploymentId, dir), true);
  if (!watch) return;
  const watcher = watchModelDir(db, deploymentId, dir, app.log);
  app.addHook('onClose', () => watcher.close());
  app.log.info({ dir, deploymentId }, 'watching the model directory for changes');
};
