import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { ReadCache } from '../../cache/read-cache.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { EnvVariablesRepository } from './repository.ts';

/** Variables a deployment gets without storing them (tokens minted for it). */
export interface IssuedVariables {
  values(deploymentId: number): Promise<ReadonlyMap<string, string>>;
  /** Their names, read through `db` when given (inside the caller's transaction). */
  names(deploymentId: number, db?: Db): Promise<string[]>;
}

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
    /** Variables issued rather than stored (modules/oidc/issuer: deployment tokens), read past the cache. */
    private readonly issued?: IssuedVariables,
  ) {
    bus.subscribe('deployments', () => this.cache.clear());
  }

  async values(deploymentId: number): Promise<ReadonlyMap<string, string>> {
    const stored = await this.cache.get(String(deploymentId), async () => {
      const rows = await this.repository.all(deploymentId);
      return new Map(rows.map((r) => [r.name, this.secrets.open(r.value_enc)]));
    });
    if (!this.issued) return stored;
    return new Map([...stored, ...(await this.issued.values(deploymentId))]);
  }

  /** The names a deployment has (read through `db` inside a transaction, past the cache). */
  async names(deploymentId: number, db?: Db): Promise<ReadonlySet<string>> {
    const rows = await this.repository.all(deploymentId, db);
    const issued = this.issued ? await this.issued.names(deploymentId, db) : [];
    return new Set([...rows.map((r) => r.name), ...issued]);
  }

  forget(): void {
    this.cache.clear();
  }
}
