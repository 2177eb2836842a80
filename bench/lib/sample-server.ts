/**
 * Shared by the data-API and SQL-API benchmarks: a Tessera server on loopback over the sample
 * DuckDB database at the default scale (1,000,000 orders), a data-API token for its demo
 * deployment, and a direct DuckDB connection to the same file for the baseline.
 *
 * Env: TESSERA_BENCH_DIR (data directory, default $TMPDIR/tessera-bench-data, reused between runs
 * and benchmarks), TESSERA_BENCH_ITERATIONS (default 15).
 */
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { openMigratedStore, secretBoxFor } from '../../packages/server/src/bootstrap/runtime.ts';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { DuckDbDriver } from '../../packages/server/src/datasources/duckdb-driver.ts';
import { sampleDatabaseFile } from '../../packages/server/src/datasources/registry.ts';
import { ensureSampleDatabase } from '../../packages/server/src/datasources/sample/generate.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';

export { iterations, median } from './stats.ts';

export interface SampleServer {
  /** The sample DuckDB file. */
  file: string;
  /** `{base}/data/{id}{basePath}/v1`. */
  dataApiUrl: string;
  /** POSTs a JSON body to a data-API operation; throws on an error answer. Returns the body text. */
  post(operation: string, body: unknown): Promise<string>;
  /** A direct, read-only connection to the same DuckDB file. */
  direct: DuckDbDriver;
  /**
   * A deployment over another data source (found by name, else created), with the demo
   * deployment's model files: `post` as above, for it.
   */
  deployment(
    name: string,
    dataSource: Record<string, unknown>,
  ): Promise<{ post(operation: string, body: unknown): Promise<string> }>;
  close(): Promise<void>;
}

export async function startSampleServer(): Promise<SampleServer> {
  const dataDir = process.env.TESSERA_BENCH_DIR ?? path.join(os.tmpdir(), 'tessera-bench-data');
  const config = { ...loadConfig({}), dataDir, port: 0, rateLimitPerMinute: 0, logLevel: 'warn' };
  const file = sampleDatabaseFile(dataDir);
  await ensureSampleDatabase(file, 1, (line) => process.stderr.write(`\r${line}   `));
  process.stderr.write('\n');
  const store = await openMigratedStore(config);
  const secrets = secretBoxFor(config);
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const { app, services } = await buildApp({ config, db: store.db, secrets, logger: false });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const deployment = await store.db
    .selectFrom('deployments')
    .selectAll()
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const secret = secrets.open(
    (await services.deployments.require(seeded.tenantId, deployment.id)).api_secret_enc,
  );
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(secret));
  const dataApiUrl = `${baseUrl}/data/${deployment.id}${deployment.base_path}/v1`;
  const direct = await DuckDbDriver.open(file, true);
  const poster =
    (url: string, token: string) =>
    async (operation: string, body: unknown): Promise<string> => {
      let res: Response;
      let text: string;
      // a slow query answers "Continue wait": send it again, as Cube's clients do, until it is done
      do {
        res = await fetch(`${url}/${operation}`, {
          method: 'POST',
          headers: { authorization: token, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        text = await res.text();
      } while (res.status === 200 && text.includes('"error":"Continue wait"'));
      if (res.status !== 200 || text.includes('"error"')) {
        throw new Error(`${operation} failed: ${res.status} ${text.slice(0, 300)}`);
      }
      return text;
    };
  return {
    file,
    dataApiUrl,
    direct,
    post: poster(dataApiUrl, token),
    deployment: async (name, dataSource) => {
      let other = await store.db
        .selectFrom('deployments')
        .selectAll()
        .where('tenant_id', '=', seeded.tenantId)
        .where('name', '=', name)
        .executeTakeFirst();
      if (!other) {
        const principal = {
          tenantId: seeded.tenantId,
          userId: seeded.adminUserId,
          role: 'admin' as const,
          credentialId: 0,
          credentialKind: 'session' as const,
          deploymentIds: null,
        };
        const created = await services.deployments.create(principal, { name, dataSource } as never);
        const files = await store.db
          .selectFrom('model_files')
          .select(['path', 'content', 'branch'])
          .where('deployment_id', '=', deployment.id)
          .execute();
        await store.db
          .insertInto('model_files')
          .values(files.map((f) => ({ ...f, deployment_id: created.id })))
          .execute();
        other = await store.db
          .selectFrom('deployments')
          .selectAll()
          .where('id', '=', created.id)
          .executeTakeFirstOrThrow();
      }
      const otherSecret = secrets.open(
        (await services.deployments.require(seeded.tenantId, other.id)).api_secret_enc,
      );
      const otherToken = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(otherSecret));
      return { post: poster(`${baseUrl}/data/${other.id}${other.base_path}/v1`, otherToken) };
    },
    close: async () => {
      await direct.close();
      await app.close();
      await store.close();
    },
  };
}
