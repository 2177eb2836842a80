import { Type } from 'typebox';
import { type ScimType, scimTypes } from './catalogue.ts';
import type { ErrorRenderer } from './reply.ts';

/** RFC 7644 section 3.12. */
const scimErrorUrn = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimErrorBody {
  schemas: [typeof scimErrorUrn];
  status: string;
  scimType?: ScimType;
  detail: string;
}

/** The SCIM error schema as published in the OpenAPI document (`components/schemas/ScimError`). */
export const ScimErrorBodySchema = Type.Object(
  {
    schemas: Type.Array(Type.Literal(scimErrorUrn)),
    status: Type.String({ description: 'The HTTP status code, as a string' }),
    scimType: Type.Optional(Type.Enum(scimTypes)),
    detail: Type.String(),
  },
  { description: 'RFC 7644 section 3.12 error' },
);

/** SCIM errors in the SCIM error schema, with `scimType` where RFC 7644 table 9 has one. */
export const scimErrorRenderer: ErrorRenderer = {
  contentType: 'application/scim+json; charset=utf-8',
  render(error): ScimErrorBody {
    return {
      schemas: [scimErrorUrn],
      status: String(error.status),
      ...(error.scimType ? { scimType: error.scimType } : {}),
      detail: error.message,
    };
  },
};
