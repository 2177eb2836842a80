import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { access, contextOf, tags, withResourceHeaders } from './plugin.ts';
import { readProjection } from './projection.ts';
import type { ResourceService } from './resource-service.ts';
import {
  ListQuery,
  listOf,
  PatchOp,
  ResourceIdParams,
  ResourceQuery,
  ScimErrorSchema,
  ScimGroup,
  ScimUser,
  SearchRequest,
  scimMedia,
} from './schemas.ts';

const errors = {
  400: ScimErrorSchema,
  401: ScimErrorSchema,
  403: ScimErrorSchema,
  404: ScimErrorSchema,
  409: ScimErrorSchema,
  412: ScimErrorSchema,
};
const ifMatchOf = (request: FastifyRequest) =>
  typeof request.headers['if-match'] === 'string' ? request.headers['if-match'] : undefined;

/** A response without a body (the typed reply wants one per status schema). */
const empty = (reply: FastifyReply, status: 204 | 304) => (reply as FastifyReply).code(status).send();

/**
 * CRUD and search of one resource type (RFC 7644 section 3). The endpoint is also answered in
 * lower case (`/users`), which the Microsoft collection calls; that alias stays out of the
 * OpenAPI document.
 */
export const resourceRoutes: FastifyPluginAsyncTypebox<{ service: ResourceService }> = async (
  app,
  { service },
) => {
  const { kind } = service;
  const Resource = kind === 'User' ? ScimUser : ScimGroup;
  const plural = `${kind}s`;
  for (const base of [`/${plural}`, `/${plural.toLowerCase()}`]) {
    const hide = base !== `/${plural}`;
    const doc = (operationId: string, summary: string) => ({
      tags,
      ...scimMedia,
      operationId: `scim${operationId}`,
      summary,
      ...(hide ? { hide: true } : {}),
    });
    const op = (name: string) => (hide ? `${name}Lower` : name);

    // `/Users/?filter=...` (the Microsoft collection) is the list too, not a User with an empty id.
    for (const url of [base, `${base}/`]) {
      const listDoc =
        url === base
          ? doc(op(`List${plural}`), `List or filter ${plural}`)
          : { ...doc(op(`List${plural}Slash`), `List ${plural}`), hide: true };
      app.get(
        url,
        {
          schema: { ...listDoc, querystring: ListQuery, response: { 200: listOf(Resource), ...errors } },
          config: access,
        },
        (request) => service.list(contextOf(request), request.query),
      );
    }
    app.post(
      `${base}/.search`,
      {
        schema: {
          ...doc(op(`Search${plural}`), `Search ${plural} (RFC 7644 section 3.4.3)`),
          body: SearchRequest,
          response: { 200: listOf(Resource), ...errors },
        },
        config: access,
      },
      (request) => service.list(contextOf(request), request.body),
    );
    app.post(
      base,
      {
        schema: {
          ...doc(op(`Create${kind}`), `Create a ${kind}`),
          body: Resource,
          response: { 201: Resource, ...errors },
        },
        config: access,
      },
      async (request, reply) => {
        const found = await service.create(contextOf(request), request.body);
        reply.code(201);
        return withResourceHeaders(reply, found);
      },
    );
    app.get(
      `${base}/:id`,
      {
        schema: {
          ...doc(op(`Get${kind}`), `Get a ${kind}`),
          params: ResourceIdParams,
          querystring: ResourceQuery,
          response: { 200: Resource, ...errors },
        },
        config: access,
      },
      async (request, reply) => {
        const found = await service.get(
          contextOf(request),
          request.params.id,
          readProjection(kind, request.query.attributes, request.query.excludedAttributes),
        );
        if (request.headers['if-none-match'] === `W/"${found.version}"`) return empty(reply, 304);
        return withResourceHeaders(reply, found);
      },
    );
    app.put(
      `${base}/:id`,
      {
        schema: {
          ...doc(op(`Replace${kind}`), `Replace a ${kind}`),
          params: ResourceIdParams,
          body: Resource,
          response: { 200: Resource, ...errors },
        },
        config: access,
      },
      async (request, reply) =>
        withResourceHeaders(
          reply,
          await service.replace(contextOf(request), request.params.id, request.body, ifMatchOf(request)),
        ),
    );
    app.patch(
      `${base}/:id`,
      {
        schema: {
          ...doc(
            op(`Patch${kind}`),
            service.patchAnswer === 200
              ? `Patch a ${kind}; answers the ${kind}`
              : `Patch a ${kind}; answers 204 unless attributes are asked for`,
          ),
          params: ResourceIdParams,
          querystring: ResourceQuery,
          body: PatchOp,
          response: { 200: Resource, 204: { type: 'null', description: 'Patched' }, ...errors },
        },
        config: access,
      },
      async (request, reply) => {
        const found = await service.patch(
          contextOf(request),
          request.params.id,
          request.body,
          ifMatchOf(request),
        );
        const { attributes, excludedAttributes } = request.query;
        // RFC 7644 section 3.5.2: 200 with the resource, or 204 (the type's choice, resource-type.ts);
        // 200 when attributes are asked for.
        if (service.patchAnswer === 204 && attributes === undefined && excludedAttributes === undefined) {
          reply.header('etag', `W/"${found.version}"`);
          return empty(reply, 204);
        }
        if (attributes !== undefined || excludedAttributes !== undefined) {
          return withResourceHeaders(
            reply,
            await service.get(
              contextOf(request),
              request.params.id,
              readProjection(kind, attributes, excludedAttributes),
            ),
          );
        }
        return withResourceHeaders(reply, found);
      },
    );
    app.delete(
      `${base}/:id`,
      {
        schema: {
          ...doc(op(`Delete${kind}`), `Delete a ${kind}`),
          params: ResourceIdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errors },
        },
        config: access,
      },
      async (request, reply) => {
        await service.delete(contextOf(request), request.params.id, ifMatchOf(request));
        return empty(reply, 204);
      },
    );
  }
};
