import { compileModelAsync, formatModelError, type Model } from '@tessera/semantic';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { ReadCache } from '../../cache/read-cache.ts';
import type { DataModelRepository } from '../data-model/repository.ts';
import { modelCompileError } from './errors.ts';

/**
 * Compiled data models per deployment and branch, kept until the files change. Migration
 * 0004-data makes every write to `model_files` notify the `deployments` topic of the
 * invalidation bus, so an edit on any replica drops the compiled model everywhere.
 */
export class ModelCache {
  private readonly models = new ReadCache<{ model: Model; errors: string[] }>(10 * 60_000, 1_000);

  constructor(
    private readonly files: Pick<DataModelRepository, 'files'>,
    bus: InvalidationBus,
  ) {
    bus.subscribe('deployments', () => this.models.clear());
  }

  async get(deploymentId: number, branch: string): Promise<Model> {
    const entry = await this.models.get(`${deploymentId}|${branch}`, async () => {
      const { model, errors } = await compileModelAsync(await this.files.files(deploymentId, branch));
      return { model, errors: errors.map(formatModelError) };
    });
    // Cube answers a model that does not compile with its compile errors; they are the model
    // author's text, not server internals.
    if (entry.errors.length > 0) throw modelCompileError(`Compile errors:\n${entry.errors.join('\n')}`);
    return entry.model;
  }
}
