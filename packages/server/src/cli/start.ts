import { openMigratedStore, secretBoxFor } from '../bootstrap/runtime.ts';
import { seed } from '../bootstrap/seed.ts';
import { InvalidationBus } from '../cache/invalidation-bus.ts';
import type { Config } from '../config/config.ts';
import { buildApp } from '../http/app.ts';

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * `tessera start`: store, migrations, first-start seed, HTTP server. Stopping closes the HTTP
 * server first (in-flight requests finish, new ones get 503) and then the store.
 */
export async function startServer(
  config: Config,
  print: (line: string) => void = console.log,
): Promise<RunningServer> {
  const store = await openMigratedStore(config);
  const secrets = secretBoxFor(config);
  const seeded = await seed(store.db, secrets, {
    dataDir: config.dataDir,
    adminApiKey: config.adminApiKey,
    skipDemo: config.skipDemo,
  });
  const bus = new InvalidationBus();
  await bus.connect(store);
  const { app } = await buildApp({ config, db: store.db, secrets, bus });
  app.addHook('onClose', async () => {
    await bus.close();
    await store.close();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const url = config.publicUrl ?? address.replace('[::1]', 'localhost');

  print('');
  print(
    `Tessera is running (${store.kind === 'pglite' ? `embedded store in ${config.dataDir}` : 'PostgreSQL store'})`,
  );
  print(`  Web UI:         ${url}/`);
  print(`  API reference:  ${url}/api/docs`);
  print(`  OpenAPI:        ${url}/api/openapi.json`);
  print(`  Management API: ${url}/api/v1/deployments`);
  if (seeded.demoDeploymentId)
    print(`  Demo data API:  ${url}/data/${seeded.demoDeploymentId}/cubejs-api/v1/meta`);
  if (seeded.createdAdminKey) {
    print('');
    print('  Admin API key (shown once; also saved with 0600 permissions):');
    print(`    ${seeded.createdAdminKey}`);
    print(`    ${seeded.adminKeyFile}`);
    print(`  Try: curl -H "Authorization: Bearer $(cat ${seeded.adminKeyFile})" ${url}/api/v1/deployments`);
  }
  print('');

  let stopping: Promise<void> | null = null;
  return {
    url,
    stop: () => {
      stopping ??= app.close().then(() => undefined);
      return stopping;
    },
  };
}
