import { urn } from './constants.ts';

/** An attribute definition as RFC 7643 section 7 describes it (also served at /Schemas). */
export interface AttributeDef {
  name: string;
  type: 'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'binary' | 'complex';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: AttributeDef[];
  canonicalValues?: string[];
  referenceTypes?: string[];
}

export interface SchemaDef {
  id: string;
  name: string;
  description: string;
  attributes: AttributeDef[];
}

type Options = Partial<Omit<AttributeDef, 'name' | 'type' | 'subAttributes'>>;

function attr(
  name: string,
  type: AttributeDef['type'],
  description: string,
  options: Options = {},
): AttributeDef {
  return {
    name,
    type,
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...options,
  };
}

const str = (name: string, description: string, options: Options = {}) =>
  attr(name, 'string', description, options);

function complex(
  name: string,
  description: string,
  subAttributes: AttributeDef[],
  options: Options = {},
): AttributeDef {
  return { ...attr(name, 'complex', description, options), subAttributes };
}

/** The value/display/type/primary shape of RFC 7643 section 2.4, used by emails, phoneNumbers, ... */
function multi(
  name: string,
  description: string,
  value: AttributeDef = str('value', `The ${name} value`),
  types?: string[],
): AttributeDef {
  return complex(
    name,
    description,
    [
      value,
      str('display', 'A human-readable name, primarily used for display purposes'),
      str('type', 'A label indicating the function', types ? { canonicalValues: types } : {}),
      attr('primary', 'boolean', 'Indicates the preferred value; at most one is true'),
    ],
    { multiValued: true },
  );
}

/** RFC 7643 section 4.1 and 8.7.1. */
export const userSchema: SchemaDef = {
  id: urn.user,
  name: 'User',
  description: 'User Account',
  attributes: [
    str(
      'userName',
      'Unique identifier for the User, typically used to sign in; unique per account, case-insensitive',
      {
        required: true,
        uniqueness: 'server',
      },
    ),
    complex('name', "The components of the user's name", [
      str('formatted', 'The full name, formatted for display'),
      str('familyName', 'The family name (Tessera: last name)'),
      str('givenName', 'The given name (Tessera: first name)'),
      str('middleName', 'The middle name(s)'),
      str('honorificPrefix', 'The honorific prefix(es), e.g. Ms.'),
      str('honorificSuffix', 'The honorific suffix(es), e.g. III'),
    ]),
    str('displayName', 'The name of the User, suitable for display to end-users'),
    str('nickName', 'The casual way to address the user'),
    attr('profileUrl', 'reference', "A URI of the user's online profile", { referenceTypes: ['external'] }),
    str('title', "The user's title, such as Vice President"),
    str('userType', 'The relationship between the organization and the user'),
    str('preferredLanguage', 'Preferred written or spoken language (RFC 7231 Accept-Language)'),
    str('locale', 'Default location for localizing, e.g. en-US'),
    str('timezone', 'Time zone in IANA format, e.g. Europe/Paris'),
    attr(
      'active',
      'boolean',
      "The user's administrative status; false deactivates the user and revokes their API keys",
    ),
    str('password', 'Not supported: Tessera users sign in through the identity provider', {
      mutability: 'writeOnly',
      returned: 'never',
    }),
    multi(
      'emails',
      'Email addresses; the primary (or first) one becomes the Tessera email when no other user has it',
      undefined,
      ['work', 'home', 'other'],
    ),
    multi('phoneNumbers', 'Phone numbers', undefined, ['work', 'home', 'mobile', 'fax', 'pager', 'other']),
    multi('ims', 'Instant messaging addresses'),
    multi(
      'photos',
      'URLs of photos',
      attr('value', 'reference', 'URL of a photo', { referenceTypes: ['external'] }),
      ['photo', 'thumbnail'],
    ),
    complex(
      'addresses',
      'Physical mailing addresses',
      [
        str('formatted', 'The full mailing address'),
        str('streetAddress', 'The street address'),
        str('locality', 'The city or locality'),
        str('region', 'The state or region'),
        str('postalCode', 'The zip code or postal code'),
        str('country', 'The country name (ISO 3166-1 alpha-2)'),
        str('type', 'work, home or other', { canonicalValues: ['work', 'home', 'other'] }),
        attr('primary', 'boolean', 'The preferred address'),
      ],
      { multiValued: true },
    ),
    complex(
      'groups',
      'Groups the user belongs to; change memberships through the Group resource',
      [
        str('value', 'The id of the group', { mutability: 'readOnly', caseExact: true }),
        attr('$ref', 'reference', 'The URI of the group', {
          mutability: 'readOnly',
          referenceTypes: ['Group'],
        }),
        str('display', 'The group name', { mutability: 'readOnly' }),
        str('type', 'direct', { mutability: 'readOnly', canonicalValues: ['direct', 'indirect'] }),
      ],
      { multiValued: true, mutability: 'readOnly' },
    ),
    multi('entitlements', 'Entitlements'),
    multi('roles', 'Roles (stored; Tessera roles are managed in Tessera)'),
    multi('x509Certificates', 'X.509 certificates', attr('value', 'binary', 'A DER certificate, base64')),
  ],
};

/** RFC 7643 section 4.3. */
export const enterpriseUserSchema: SchemaDef = {
  id: urn.enterpriseUser,
  name: 'EnterpriseUser',
  description: 'Enterprise User',
  attributes: [
    str('employeeNumber', 'Numeric or alphanumeric identifier assigned to a person'),
    str('costCenter', 'Name of a cost center'),
    str('organization', 'Name of an organization'),
    str('division', 'Name of a division'),
    str('department', 'Name of a department'),
    complex('manager', "The user's manager", [
      str('value', 'The id of the manager', { caseExact: true }),
      attr('$ref', 'reference', 'The URI of the manager', { referenceTypes: ['User'] }),
      str('displayName', 'The display name of the manager', { mutability: 'readOnly' }),
    ]),
  ],
};

/** RFC 7643 section 4.2 and 8.7.1. Tessera: a global group; members are users of the account. */
export const groupSchema: SchemaDef = {
  id: urn.group,
  name: 'Group',
  description: 'Group',
  attributes: [
    str('displayName', 'A human-readable name for the Group; unique per account, case-insensitive', {
      required: true,
      uniqueness: 'server',
    }),
    complex(
      'members',
      'Users in the group: each value is the id of a user of the account (else 400 invalidValue)',
      [
        str('value', 'The id of a member user', { mutability: 'immutable', caseExact: true }),
        attr('$ref', 'reference', 'The URI of the member', {
          mutability: 'immutable',
          referenceTypes: ['User'],
        }),
        str('display', 'A human-readable name of the member', { mutability: 'immutable' }),
        str('type', 'User', { mutability: 'immutable', canonicalValues: ['User'] }),
      ],
      { multiValued: true },
    ),
  ],
};

/** Attributes common to every resource (RFC 7643 section 3.1). */
export const commonAttributes: AttributeDef[] = [
  str('id', 'Identifier assigned by Tessera', {
    caseExact: true,
    mutability: 'readOnly',
    returned: 'always',
    uniqueness: 'server',
  }),
  str('externalId', 'Identifier assigned by the provisioning client', { caseExact: true }),
  complex(
    'meta',
    'Resource metadata',
    [
      str('resourceType', 'User or Group', { caseExact: true, mutability: 'readOnly' }),
      attr('created', 'dateTime', 'When the resource was added', { mutability: 'readOnly' }),
      attr('lastModified', 'dateTime', 'When the resource was last updated', { mutability: 'readOnly' }),
      attr('location', 'reference', 'The URI of the resource', { mutability: 'readOnly', caseExact: true }),
      str('version', 'The weak ETag of the resource', { caseExact: true, mutability: 'readOnly' }),
    ],
    { mutability: 'readOnly' },
  ),
];

export type ResourceKind = 'User' | 'Group';

/** The core schema and extensions of each resource type. */
export const resourceSchemas: Record<ResourceKind, { core: SchemaDef; extensions: SchemaDef[] }> = {
  User: { core: userSchema, extensions: [enterpriseUserSchema] },
  Group: { core: groupSchema, extensions: [] },
};

/** Case-insensitive lookup of an attribute among definitions (RFC 7643 section 2.1). */
export function findAttribute(defs: AttributeDef[] | undefined, name: string): AttributeDef | undefined {
  const lower = name.toLowerCase();
  return defs?.find((d) => d.name.toLowerCase() === lower);
}
