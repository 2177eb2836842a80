/** SCIM URNs (RFC 7643 sections 3, 4 and 8.7; RFC 7644 sections 3.4.2, 3.5.2 and 3.12). */
export const urn = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  searchRequest: 'urn:ietf:params:scim:api:messages:2.0:SearchRequest',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

/** RFC 7644 section 8.1. */
export const scimMediaType = 'application/scim+json';
export const scimContentType = `${scimMediaType}; charset=utf-8`;

export const scimPrefix = '/api/scim/v2';

/** Page size when the client sends no `count`, and the most we return (ServiceProviderConfig filter.maxResults). */
export const defaultCount = 100;
export const maxCount = 1000;
