import type { App } from '../../http/types.ts';
import { scimPrefix } from './constants.ts';
import { discoveryRoutes } from './discovery-routes.ts';
import { configureScope } from './plugin.ts';
import { resourceRoutes } from './resource-routes.ts';
import type { ResourceService } from './resource-service.ts';
import { searchRoutes } from './search-routes.ts';

export interface ScimServices {
  users: ResourceService;
  groups: ResourceService;
}

/** SCIM 2.0 provisioning under /api/scim/v2 (RFC 7644), in its own scope (plugin.ts). */
export function scimRoutes(app: App, services: ScimServices) {
  app.register(
    async (scope) => {
      const scimScope = scope as unknown as App;
      configureScope(scimScope);
      discoveryRoutes(scimScope);
      resourceRoutes(scimScope, services.users);
      resourceRoutes(scimScope, services.groups);
      searchRoutes(scimScope, services);
    },
    { prefix: scimPrefix },
  );
}
