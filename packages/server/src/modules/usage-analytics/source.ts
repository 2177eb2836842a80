import { CompiledQuery } from 'kysely';
import { type Driver, QueryCancelledError } from '../../datasources/driver.ts';
import type { DriverRegistry } from '../../datasources/registry.ts';
import type { DeploymentRow } from '../../db/schema.ts';
import type { ModelFiles } from '../data/ports.ts';
import { usageModelFiles } from './model.ts';
import type { UsageAnalyticsRepository } from './repository.ts';

/** The id the data API's URL names every tenant's usage deployment by (`/data/0/cubejs-api/v1`). */
export const usageDeploymentId = 0;

/** What a usage deployment's data source says: PostgreSQL's dialect, read through this module. */
const usageDataSource = { type: 'postgres', usageAnalytics: true } as const;

/** A statement of the usage model stops after this long (the metadata store serves the app first). */
const statementTimeoutMs = 15_000;

/**
 * The built-in usage deployment of each tenant (issue 25 item 5), served by the same data API,
 * model cache and executor as any deployment. Inside the server its row has the negated tenant id,
 * which no stored deployment has (serial ids are positive), so caches keyed by deployment keep
 * tenants apart; its model is the YAML in `model/`, its driver reads the metadata store as that
 * tenant only (repository.ts `readAsTenant`).
 */
export class UsageSource {
  constructor(private readonly repository: UsageAnalyticsRepository) {}

  /** The tenant's usage deployment; undefined until an admin has minted its first token. */
  async deployment(tenantId: number): Promise<DeploymentRow | undefined> {
    const sealed = await this.repository.secret(tenantId);
    if (sealed === undefined) return undefined;
    const epoch = new Date(0);
    return {
      id: -tenantId,
      tenant_id: tenantId,
      name: 'Usage Analytics',
      data_source: usageDataSource,
      api_secret_enc: sealed,
      base_path: '/cubejs-api',
      creation_step: 'ready',
      created_at: epoch,
      updated_at: epoch,
    };
  }

  owns(deployment: Pick<DeploymentRow, 'id' | 'data_source'>): boolean {
    return (
      deployment.id < 0 && (deployment.data_source as { usageAnalytics?: unknown }).usageAnalytics === true
    );
  }

  /** The model cache's files: the built-in model for a usage deployment, the stored ones otherwise. */
  modelFiles(stored: ModelFiles): ModelFiles {
    return {
      files: (deploymentId, branch) =>
        deploymentId < 0 ? Promise.resolve(usageModelFiles()) : stored.files(deploymentId, branch),
    };
  }

  /** The data API's drivers: a usage deployment's reads the store as its tenant. */
  drivers(registry: Pick<DriverRegistry, 'get'>): Pick<DriverRegistry, 'get'> {
    return {
      get: (deployment, viewer) =>
        this.owns(deployment)
          ? Promise.resolve(this.driver(-deployment.id))
          : registry.get(deployment, viewer),
    };
  }

  private driver(tenantId: number): Driver {
    return {
      dialect: 'postgres',
      query: async (sql, params, options) => {
        if (options?.signal?.aborted) throw new QueryCancelledError('The query was cancelled');
        return this.repository.readAsTenant(
          tenantId,
          CompiledQuery.raw(sql, [...params]),
          statementTimeoutMs,
        );
      },
      close: async () => undefined,
    };
  }
}
