import { maxCount, scimPrefix, urn } from './constants.ts';
import { ScimError } from './errors.ts';
import {
  commonAttributes,
  enterpriseUserSchema,
  groupSchema,
  type SchemaDef,
  userSchema,
} from './schema-defs.ts';

/** RFC 7643 section 5. */
export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [urn.serviceProviderConfig],
    documentationUri: 'https://datatracker.ietf.org/doc/html/rfc7644',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: maxCount },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM token',
        description:
          'An API key of kind scim (POST /api/v1/api-keys), sent as "Authorization: Bearer <key>" or "Authorization: Api-Key <key>"',
        primary: true,
      },
    ],
    meta: {
      resourceType: 'ServiceProviderConfig',
      location: `${baseUrl}${scimPrefix}/ServiceProviderConfig`,
    },
  };
}

const resourceTypeDefs = [
  {
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'User Account',
    schema: urn.user,
    extensions: [urn.enterpriseUser],
  },
  {
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: 'Group',
    schema: urn.group,
    extensions: [] as string[],
  },
];

/** RFC 7643 section 6. Users first: clients look for `Resources[0].endpoint == "/Users"`. */
export function resourceTypes(baseUrl: string) {
  return resourceTypeDefs.map((t) => ({
    schemas: [urn.resourceType],
    id: t.id,
    name: t.name,
    endpoint: t.endpoint,
    description: t.description,
    schema: t.schema,
    schemaExtensions: t.extensions.map((schema) => ({ schema, required: false })),
    meta: { resourceType: 'ResourceType', location: `${baseUrl}${scimPrefix}/ResourceTypes/${t.id}` },
  }));
}

export function resourceType(baseUrl: string, id: string) {
  const found = resourceTypes(baseUrl).find((t) => t.id === id);
  if (!found) throw new ScimError(404, undefined, `ResourceType ${id} not found`);
  return found;
}

function schemaDocument(baseUrl: string, def: SchemaDef, withCommon: boolean) {
  return {
    schemas: [urn.schema],
    id: def.id,
    name: def.name,
    description: def.description,
    attributes: withCommon
      ? [...commonAttributes.filter((a) => a.name === 'externalId'), ...def.attributes]
      : def.attributes,
    meta: { resourceType: 'Schema', location: `${baseUrl}${scimPrefix}/Schemas/${def.id}` },
  };
}

/** RFC 7643 section 7 and 8.7.1. */
export function schemas(baseUrl: string) {
  return [
    schemaDocument(baseUrl, userSchema, true),
    schemaDocument(baseUrl, enterpriseUserSchema, false),
    schemaDocument(baseUrl, groupSchema, true),
  ];
}

export function schema(baseUrl: string, id: string) {
  const found = schemas(baseUrl).find((s) => s.id.toLowerCase() === id.toLowerCase());
  if (!found) throw new ScimError(404, undefined, `Schema ${id} not found`);
  return found;
}

/** Discovery lists are ListResponses too (RFC 7644 section 4). */
export function discoveryList<T>(resources: T[]) {
  return {
    schemas: [urn.listResponse],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
