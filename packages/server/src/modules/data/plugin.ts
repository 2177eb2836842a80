import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { Config } from '../../config/config.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import { DriverRegistry } from '../../datasources/registry.ts';
import type { Db } from '../../db/database.ts';
import type { App } from '../../http/types.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { TenantResolver } from '../tenants/resolver.ts';
import { QueryExecutor } from './executor.ts';
import { ModelCache } from './model-cache.ts';
import { ModelFilesRepository } from './repository.ts';
import { dataRoutes } from './routes.ts';
import { DataService } from './service.ts';
import { type DataSettings, dataSettingsFromEnv } from './settings.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The data API's service; tests shorten its continue-wait and timeouts per app. */
    dataApi: DataService;
  }
}

export interface DataApiDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  bus: InvalidationBus;
  deployments: DeploymentsService;
  tenants: TenantResolver;
  settings?: Partial<DataSettings>;
}

/** Wires the data API: drivers, model cache, executor, routes; closes the drivers with the app. */
export async function registerDataApi(app: App, deps: DataApiDeps): Promise<DataService> {
  const settings = { ...dataSettingsFromEnv(), ...deps.settings };
  const drivers = new DriverRegistry({
    dataDir: deps.config.dataDir,
    secrets: deps.secrets,
    sampleScale: settings.sampleScale,
  });
  const service = new DataService({
    deployments: deps.deployments,
    tenants: deps.tenants,
    secrets: deps.secrets,
    models: new ModelCache(new ModelFilesRepository(deps.db), deps.bus),
    drivers,
    executor: new QueryExecutor(settings),
    settings,
  });
  app.decorate('dataApi', service);
  app.addHook('onClose', () => drivers.close());
  await app.register(async (scope) => dataRoutes(scope as unknown as App, service));
  return service;
}
