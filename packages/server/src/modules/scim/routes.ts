import type { App } from '../../http/types.ts';
import { scimPrefix } from './constants.ts';
import { discoveryRoutes } from './discovery-routes.ts';
import type { ScimGroupsService } from './groups-service.ts';
import { configureScope } from './plugin.ts';
import { resourceRoutes } from './resource-routes.ts';
import { searchRoutes } from './search-routes.ts';
import type { ScimUsersService } from './users-service.ts';

export interface ScimServices {
  users: ScimUsersService;
  groups: ScimGroupsService;
}

/** SCIM 2.0 provisioning under /api/scim/v2 (RFC 7644), in its own scope (plugin.ts). */
export function scimRoutes(app: App, services: ScimServices) {
  app.register(
    async (scope) => {
      const scimScope = scope as unknown as App;
      configureScope(scimScope);
      discoveryRoutes(scimScope);
      resourceRoutes(scimScope, 'User', services.users);
      resourceRoutes(scimScope, 'Group', services.groups);
      searchRoutes(scimScope, services);
    },
    { prefix: scimPrefix },
  );
}
