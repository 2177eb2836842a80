import type { AddressInfo } from 'node:net';
import { seedDemoDashboard } from '../bootstrap/demo-dashboard.ts';
import { openMigratedStore, secretBoxFor } from '../bootstrap/runtime.ts';
import { seed } from '../bootstrap/seed.ts';
import { InvalidationBus } from '../cache/invalidation-bus.ts';
import type { Config } from '../config/config.ts';
import { sampleDatabaseFile } from '../datasources/registry.ts';
import { ensureSampleDatabase, sampleScaleFromEnv } from '../datasources/sample/generate.ts';
import type { Store } from '../db/database.ts';
import { buildApp } from '../http/app.ts';
import { chatApiPath } from '../modules/chat/agents/service.ts';

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
  /** The store, when the caller began opening it (main.ts); else opened here. */
  opening: Promise<Store> = openMigratedStore(config),
): Promise<RunningServer> {
  const store = await opening;
  const secrets = secretBoxFor(config);
  const seeded = await seed(store.db, secrets, {
    dataDir: config.dataDir,
    adminApiKey: config.adminApiKey,
    adminEmail: config.adminEmail,
    skipDemo: config.skipDemo,
  });
  if (!config.skipDemo) {
    // Generated once into the data directory and reused by later starts (DESIGN.md).
    await ensureSampleDatabase(sampleDatabaseFile(config.dataDir), sampleScaleFromEnv(), (line) =>
      print(`Generating sample data ${line}`),
    );
  }
  const bus = new InvalidationBus();
  await bus.connect(store);
  const { app, services } = await buildApp({ config, db: store.db, secrets, bus });
  // The demo deployment was made by this start: give it its dashboard, so that the web app opens
  // on something to look at (it is made through the services, as the publish route would).
  const demoDashboard = seeded.demoDeploymentId
    ? await seedDemoDashboard(services, {
        tenantId: seeded.tenantId,
        userId: seeded.adminUserId,
        deploymentId: seeded.demoDeploymentId,
      })
    : null;
  app.addHook('onClose', async () => {
    await bus.close();
    await store.close();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  // PORT=0 takes any free port: the addresses the API hands out (deployment, chat and dashboard
  // URLs, built from the configuration when TESSERA_PUBLIC_URL is unset) name the one it got.
  if (config.port === 0) config.port = (app.server.address() as AddressInfo).port;
  const url = config.publicUrl ?? address.replace('[::1]', 'localhost');

  // One write, so that a supervisor or test reading the output never sees half of it.
  const lines: string[] = [];
  lines.push('');
  lines.push(
    `Tessera is running (${store.kind === 'pglite' ? `embedded store in ${config.dataDir}` : 'PostgreSQL store'})`,
  );
  lines.push(`  Web UI:         ${url}/`);
  lines.push(`  API reference:  ${url}/api/docs`);
  lines.push(`  OpenAPI:        ${url}/api/openapi.json`);
  lines.push(`  Management API: ${url}/api/v1/deployments`);
  if (seeded.demoDeploymentId)
    lines.push(`  Demo data API:  ${url}/data/${seeded.demoDeploymentId}/cubejs-api/v1/meta`);
  if (demoDashboard)
    lines.push(`  Demo dashboard: ${url}/dashboards/${demoDashboard.deploymentId}/${demoDashboard.publicId}`);
  // The chat page a person opens; the stream beside it answers POST only (spec 4.6), so it is
  // labelled as the API it is rather than offered as an address to open.
  if (seeded.demoAgentId && seeded.demoDeploymentId)
    lines.push(
      `  Demo chat:      ${url}/chat/${seeded.demoDeploymentId}`,
      `  Chat API:       POST ${url}${chatApiPath(seeded.tenantName, seeded.demoAgentId)}/chat/stream-chat-state`,
    );
  if (seeded.createdAdminPassword) {
    lines.push('');
    lines.push(`  Sign in at ${url}/ (shown once; also saved with 0600 permissions):`);
    lines.push(`    Email:    ${seeded.adminEmail}`);
    lines.push(`    Password: ${seeded.createdAdminPassword}`);
    lines.push(`    ${seeded.adminPasswordFile}`);
  }
  if (seeded.createdAdminKey) {
    lines.push('');
    lines.push('  Admin API key (shown once; also saved with 0600 permissions):');
    lines.push(`    ${seeded.createdAdminKey}`);
    lines.push(`    ${seeded.adminKeyFile}`);
    lines.push(
      `  Try: curl -H "Authorization: Bearer $(cat ${seeded.adminKeyFile})" ${url}/api/v1/deployments`,
    );
  }
  lines.push('');

  print(lines.join('\n'));

  let stopping: Promise<void> | null = null;
  return {
    url,
    stop: () => {
      stopping ??= app.close().then(() => undefined);
      return stopping;
    },
  };
}
