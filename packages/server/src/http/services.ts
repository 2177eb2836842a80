import type { InvalidationBus } from '../cache/invalidation-bus.ts';
import { ReadCache } from '../cache/read-cache.ts';
import type { SecretBox } from '../crypto/secrets.ts';
import type { Db } from '../db/database.ts';
import { ApiKeysRepository, type CredentialLookup } from '../modules/api-keys/repository.ts';
import { ApiKeysService } from '../modules/api-keys/service.ts';
import { DeploymentsRepository } from '../modules/deployments/repository.ts';
import { DeploymentsService } from '../modules/deployments/service.ts';
import { GroupsRepository } from '../modules/groups/repository.ts';
import { GroupsService } from '../modules/groups/service.ts';
import { ScimGroupsRepository } from '../modules/scim/groups-repository.ts';
import { ScimGroupsService } from '../modules/scim/groups-service.ts';
import { ScimUsersRepository } from '../modules/scim/users-repository.ts';
import { ScimUsersService } from '../modules/scim/users-service.ts';
import { TenantsRepository } from '../modules/tenants/repository.ts';
import { TenantResolver } from '../modules/tenants/resolver.ts';
import { UsersRepository } from '../modules/users/repository.ts';
import { UsersService } from '../modules/users/service.ts';

/** Wires repositories into services; each service receives exactly what it uses. */
export function createServices(
  db: Db,
  secrets: SecretBox,
  bus: InvalidationBus,
  options: { domain: string | null; publicUrl: () => string },
) {
  const tenants = new TenantsRepository(db);
  const users = new UsersRepository(db);
  const apiKeys = new ApiKeysRepository(db);
  const deployments = new DeploymentsRepository(db);
  const groups = new GroupsRepository(db);
  // Revocation must bite on the next request: the cache drops everything on any credential change.
  const credentials = new ReadCache<CredentialLookup | undefined>(
    30_000,
    10_000,
    (found) => found !== undefined,
  );
  bus.subscribe('credentials', () => credentials.clear());
  return {
    bus,
    credentials,
    repositories: { tenants, users, apiKeys, deployments, groups },
    tenantResolver: new TenantResolver(tenants, options.domain),
    deployments: new DeploymentsService({
      repository: deployments,
      secrets,
      publicUrl: options.publicUrl,
      bus,
    }),
    apiKeys: new ApiKeysService(apiKeys, users, bus),
    users: new UsersService(db, users, apiKeys, bus),
    groups: new GroupsService(groups, users),
    scimUsers: new ScimUsersService(db, new ScimUsersRepository(db), apiKeys, bus),
    scimGroups: new ScimGroupsService(db, new ScimGroupsRepository(db)),
  };
}

export type Services = ReturnType<typeof createServices>;
