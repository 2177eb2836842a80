import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { discoveryRoutes } from './discovery-routes.ts';
import { configureScope } from './plugin.ts';
import { resourceRoutes } from './resource-routes.ts';
import type { ResourceService } from './resource-service.ts';
import { searchRoutes } from './search-routes.ts';

export interface ScimServices {
  users: ResourceService;
  groups: ResourceService;
}

/**
 * SCIM 2.0 provisioning (RFC 7644), registered under `scimPrefix` (constants.ts). Its scope has
 * SCIM's parsers, serialiser and error handler (plugin.ts); the route plugins inside inherit them.
 */
export const scimRoutes: FastifyPluginAsyncTypebox<ScimServices> = async (scope, { users, groups }) => {
  configureScope(scope);
  await scope.register(discoveryRoutes);
  await scope.register(resourceRoutes, { service: users });
  await scope.register(resourceRoutes, { service: groups });
  await scope.register(searchRoutes, { resources: [users, groups] });
};
