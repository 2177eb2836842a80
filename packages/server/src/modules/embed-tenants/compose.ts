import type { Db } from '../../db/database.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { ComposedModule } from '../module.ts';
import { embedAccessRoutes } from './access-routes.ts';
import { EmbedAccessService } from './access-service.ts';
import type { EmbedGroupsRepository } from './groups-repository.ts';
import { EmbedGroupsService } from './groups-service.ts';
import { EmbedIdentities } from './identities.ts';
import { embedTenantRoutes } from './routes.ts';
import { EmbedTenantsService } from './service.ts';
import type { EmbedTenantsRepository } from './tenants-repository.ts';
import type { EmbedUsersRepository } from './users-repository.ts';

/**
 * Embed tenants, their groups and users, and dashboards shared with them: the services, with the
 * one writer of embed users (EmbedIdentities), and their routes (issue 22 item 0).
 */
export function composeEmbedTenants(deps: {
  db: Db;
  tenants: EmbedTenantsRepository;
  groups: EmbedGroupsRepository;
  users: EmbedUsersRepository;
  /** Issue 22 item 5: each change is recorded in its own transaction. */
  audit: AuditLog;
  /** Dashboard Embed Access's dependencies but the store and the tenants service, given from here. */
  access: Omit<ConstructorParameters<typeof EmbedAccessService>[0], 'db' | 'tenants' | 'audit'>;
}): ComposedModule<{
  embedIdentities: EmbedIdentities;
  embedTenants: EmbedTenantsService;
  embedGroups: EmbedGroupsService;
  embedAccess: EmbedAccessService;
}> {
  const { db, tenants, groups, users, audit } = deps;
  const embedIdentities = new EmbedIdentities({ tenants, groups, users });
  const embedTenants = new EmbedTenantsService({
    db,
    tenants,
    groups,
    users,
    identities: embedIdentities,
    audit,
  });
  const embedGroups = new EmbedGroupsService({
    db,
    tenants: embedTenants,
    groups,
    users,
    identities: embedIdentities,
    audit,
  });
  const embedAccess = new EmbedAccessService({ ...deps.access, db, tenants: embedTenants, audit });
  return {
    services: { embedIdentities, embedTenants, embedGroups, embedAccess },
    routes: async (app) => {
      await app.register(embedTenantRoutes, { tenants: embedTenants, groups: embedGroups });
      await app.register(embedAccessRoutes, { access: embedAccess });
    },
  };
}
