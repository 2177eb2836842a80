import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { ReadCache } from '../../cache/read-cache.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { EnvVariablesRepository } from './repository.ts';

/**
 * A deployment's env variables for the data sources that reference them (`${NAME}`,
 * datasources/env-references.ts): the clear values for the driver registry, the names for the
 * checks made when a data source is saved. Values are read on every query, so they are cached
 * until a change is announced; the store's trigger announces changes as `deployments` (migration
 * 0017), so every replica reopens its connections with the new values.
 */
export class EnvVariableResolver {
  private readonly cache = new ReadCache<ReadonlyMap<string, string>>(30_000, 10_000);

  constructor(
    private readonly repository: EnvVariablesRepository,
    private readonly secrets: SecretBox,
    bus: InvalidationBus,
  ) {
    bus.subscribe('deployments', () => this.cache.clear());
  }

  values(deploymentId: number): Promise<ReadonlyMap<string, string>> {
    return this.cache.get(String(deploymentId), async () => {
      const rows = await this.repository.all(deploymentId);
      return new Map(rows.map((r) => [r.name, this.secrets.open(r.value_enc)]));
    });
  }

  /** The names a deployment has (read through `db` inside a transaction, past the cache). */
  async names(deploymentId: number, db?: Db): Promise<ReadonlySet<string>> {
    const rows = await this.repository.all(deploymentId, db);
    return new Set(rows.map((r) => r.name));
  }

  forget(): void {
    this.cache.clear();
  }
}
