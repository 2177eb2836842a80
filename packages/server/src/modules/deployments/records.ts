import type { DataSourceSettings } from '../../db/schema.ts';

export interface DeploymentChanges {
  name?: string;
  dataSource?: DataSourceSettings;
  apiSecretEnc?: string;
  basePath?: string;
  creationStep?: string;
}
