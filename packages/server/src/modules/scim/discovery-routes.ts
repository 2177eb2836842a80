import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  discoveryList,
  resourceType,
  resourceTypes,
  schema,
  schemas,
  serviceProviderConfig,
} from './discovery.ts';
import { access, contextOf, tags } from './plugin.ts';
import { AnyResource, DiscoveryIdParams, listOf, ScimErrorSchema, scimMedia } from './schemas.ts';

const errors = { 401: ScimErrorSchema, 403: ScimErrorSchema, 404: ScimErrorSchema };

/** Discovery endpoints (RFC 7644 section 4). */
export const discoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/ServiceProviderConfig',
    {
      schema: {
        tags,
        ...scimMedia,
        operationId: 'scimServiceProviderConfig',
        summary: 'SCIM service provider configuration',
        response: { 200: AnyResource, ...errors },
      },
      config: access,
    },
    (request) => serviceProviderConfig(contextOf(request).baseUrl),
  );
  app.get(
    '/ResourceTypes',
    {
      schema: {
        tags,
        ...scimMedia,
        operationId: 'scimResourceTypes',
        summary: 'SCIM resource types',
        response: { 200: listOf(AnyResource), ...errors },
      },
      config: access,
    },
    (request) => discoveryList(resourceTypes(contextOf(request).baseUrl)),
  );
  app.get(
    '/ResourceTypes/:id',
    {
      schema: {
        tags,
        ...scimMedia,
        operationId: 'scimResourceType',
        summary: 'One SCIM resource type',
        params: DiscoveryIdParams,
        response: { 200: AnyResource, ...errors },
      },
      config: access,
    },
    (request) => resourceType(contextOf(request).baseUrl, request.params.id),
  );
  app.get(
    '/Schemas',
    {
      schema: {
        tags,
        ...scimMedia,
        operationId: 'scimSchemas',
        summary: 'SCIM schemas (RFC 7643 section 7)',
        response: { 200: listOf(AnyResource), ...errors },
      },
      config: access,
    },
    (request) => discoveryList(schemas(contextOf(request).baseUrl)),
  );
  app.get(
    '/Schemas/:id',
    {
      schema: {
        tags,
        ...scimMedia,
        operationId: 'scimSchema',
        summary: 'One SCIM schema',
        params: DiscoveryIdParams,
        response: { 200: AnyResource, ...errors },
      },
      config: access,
    },
    (request) => schema(contextOf(request).baseUrl, request.params.id),
  );
};
