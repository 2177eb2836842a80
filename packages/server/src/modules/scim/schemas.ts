import { Type } from 'typebox';
import { scimMediaType, urn } from './constants.ts';

/**
 * Request and response shapes for the OpenAPI document. Bodies are deliberately open
 * (`additionalProperties`): attribute names are case-insensitive (RFC 7643 section 2.1) and
 * identity providers send strings for booleans, so the module normalises them itself
 * (normalize.ts) and answers 400 invalidValue with the SCIM error schema.
 */
const open = { additionalProperties: true } as const;

/**
 * What every SCIM operation answers and reads (RFC 7644 section 8.1), for the OpenAPI document:
 * responses, errors included (section 3.12), are application/scim+json; bodies may also be JSON.
 */
export const scimMedia = { produces: [scimMediaType], consumes: [scimMediaType, 'application/json'] };
const text = Type.Optional(Type.String());
const multi = (description: string) =>
  Type.Optional(
    Type.Array(
      Type.Object(
        {
          value: text,
          display: text,
          type: text,
          primary: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
        },
        open,
      ),
      { description },
    ),
  );

export const ResourceIdParams = Type.Object({
  id: Type.String({ description: 'The SCIM id of the resource' }),
});
export const DiscoveryIdParams = Type.Object({ id: Type.String() });

const attributes = Type.Optional(
  Type.String({ description: 'Comma-separated attributes to return (RFC 7644 section 3.9)' }),
);
const excludedAttributes = Type.Optional(
  Type.String({ description: 'Comma-separated attributes to leave out' }),
);

export const ResourceQuery = Type.Object({ attributes, excludedAttributes });

export const ListQuery = Type.Object({
  filter: Type.Optional(
    Type.String({ description: 'RFC 7644 section 3.4.2.2 filter, e.g. userName eq "jane@example.com"' }),
  ),
  startIndex: Type.Optional(
    Type.Integer({ description: '1-based index of the first result; below 1 reads as 1' }),
  ),
  count: Type.Optional(
    Type.Integer({ description: 'Page size (default 100, at most 1000); negative reads as 0' }),
  ),
  sortBy: Type.Optional(Type.String()),
  sortOrder: Type.Optional(Type.String({ description: 'ascending (default) or descending' })),
  attributes,
  excludedAttributes,
});

export const SearchRequest = Type.Object(
  {
    schemas: Type.Optional(Type.Array(Type.String(), { examples: [[urn.searchRequest]] })),
    filter: text,
    startIndex: Type.Optional(Type.Integer()),
    count: Type.Optional(Type.Integer()),
    sortBy: text,
    sortOrder: text,
    attributes: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()])),
    excludedAttributes: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()])),
  },
  { ...open, description: 'RFC 7644 section 3.4.3 SearchRequest' },
);

const Meta = Type.Object({
  resourceType: text,
  created: Type.Optional(Type.String({ format: 'date-time' })),
  lastModified: Type.Optional(Type.String({ format: 'date-time' })),
  location: text,
  version: Type.Optional(Type.String({ description: 'Weak ETag, also sent as the ETag header' })),
});

export const ScimUser = Type.Object(
  {
    schemas: Type.Optional(Type.Array(Type.String(), { examples: [[urn.user]] })),
    id: Type.Optional(Type.String({ readOnly: true })),
    externalId: text,
    userName: Type.Optional(Type.String({ description: 'Required; unique per account, case-insensitive' })),
    name: Type.Optional(
      Type.Object({ formatted: text, familyName: text, givenName: text, middleName: text }, open),
    ),
    displayName: text,
    title: text,
    active: Type.Optional(
      Type.Union([Type.Boolean(), Type.String()], {
        description: 'false deactivates the user and revokes their API keys',
      }),
    ),
    emails: multi('The primary (or first) email becomes the Tessera email when free'),
    phoneNumbers: multi('Phone numbers'),
    groups: Type.Optional(Type.Array(Type.Object({ value: text, display: text }, open), { readOnly: true })),
    [urn.enterpriseUser]: Type.Optional(
      Type.Object(
        {
          employeeNumber: text,
          department: text,
          manager: Type.Optional(Type.Object({ value: text }, open)),
        },
        open,
      ),
    ),
    meta: Type.Optional(Meta),
  },
  { ...open, description: 'RFC 7643 section 4.1 User (attribute names are case-insensitive)' },
);

export const ScimGroup = Type.Object(
  {
    schemas: Type.Optional(Type.Array(Type.String(), { examples: [[urn.group]] })),
    id: Type.Optional(Type.String({ readOnly: true })),
    externalId: text,
    displayName: Type.Optional(
      Type.String({ description: 'Required; unique per account, case-insensitive' }),
    ),
    members: Type.Optional(Type.Array(Type.Object({ value: text, display: text, type: text }, open))),
    meta: Type.Optional(Meta),
  },
  { ...open, description: 'RFC 7643 section 4.2 Group: a Tessera global group' },
);

export const PatchOp = Type.Object(
  {
    schemas: Type.Optional(Type.Array(Type.String(), { examples: [[urn.patchOp]] })),
    Operations: Type.Optional(
      Type.Array(
        Type.Object(
          {
            op: Type.String({ description: 'add, remove or replace (any case)' }),
            path: text,
            value: Type.Optional(Type.Unknown()),
          },
          open,
        ),
      ),
    ),
  },
  { ...open, description: 'RFC 7644 section 3.5.2 PatchOp' },
);

export const listOf = <T extends ReturnType<typeof Type.Object>>(item: T) =>
  Type.Object({
    schemas: Type.Array(Type.String()),
    totalResults: Type.Integer(),
    startIndex: Type.Integer(),
    itemsPerPage: Type.Integer(),
    Resources: Type.Array(item),
  });

export const AnyResource = Type.Object({}, open);

export const ScimErrorSchema = Type.Object(
  {
    schemas: Type.Array(Type.String(), { examples: [[urn.error]] }),
    status: Type.String(),
    scimType: text,
    detail: Type.String(),
  },
  { description: 'RFC 7644 section 3.12 error' },
);
