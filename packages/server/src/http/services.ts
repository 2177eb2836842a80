import type { SecretBox } from '../crypto/secrets.ts';
import type { Db } from '../db/database.ts';
import { ApiKeysRepository } from '../modules/api-keys/repository.ts';
import { ApiKeysService } from '../modules/api-keys/service.ts';
import { DeploymentsRepository } from '../modules/deployments/repository.ts';
import { DeploymentsService } from '../modules/deployments/service.ts';
import { GroupsRepository } from '../modules/groups/repository.ts';
import { GroupsService } from '../modules/groups/service.ts';
import { TenantsRepository } from '../modules/tenants/repository.ts';
import { TenantResolver } from '../modules/tenants/resolver.ts';
import { UsersRepository } from '../modules/users/repository.ts';
import { UsersService } from '../modules/users/service.ts';

/** Wires repositories into services; each service receives exactly what it uses. */
export function createServices(db: Db, secrets: SecretBox, options: { domain: string | null; publicUrl: () => string }) {
  const tenants = new TenantsRepository(db);
  const users = new UsersRepository(db);
  const apiKeys = new ApiKeysRepository(db);
  const deployments = new DeploymentsRepository(db);
  const groups = new GroupsRepository(db);
  return {
    repositories: { tenants, users, apiKeys, deployments, groups },
    tenantResolver: new TenantResolver(tenants, options.domain),
    deployments: new DeploymentsService({ repository: deployments, secrets, publicUrl: options.publicUrl }),
    apiKeys: new ApiKeysService(apiKeys, users),
    users: new UsersService(db, users, apiKeys),
    groups: new GroupsService(groups, users),
  };
}

export type Services = ReturnType<typeof createServices>;
