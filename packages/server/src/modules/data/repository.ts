import type { ModelFile } from '@tessera/semantic';
import type { Db } from '../../db/database.ts';

/** The data model files of a deployment branch (`model_files`); plain Kysely, no rules. */
export class ModelFilesRepository {
  constructor(private readonly db: Db) {}

  list(deploymentId: number, branch: string): Promise<ModelFile[]> {
    return this.db
      .selectFrom('model_files')
      .select(['path', 'content'])
      .where('deployment_id', '=', deploymentId)
      .where('branch', '=', branch)
      .orderBy('path')
      .execute();
  }
}
