import type { ErrorCode, ScimType } from '../../errors/catalogue.ts';
import { DomainError } from '../../errors/domain-errors.ts';

export type { ScimType };

/** The code of a SCIM error with a `scimType` (RFC 7644 section 3.12, table 9). */
const codeOfScimType = {
  invalidFilter: 'invalid_filter',
  invalidPath: 'invalid_path',
  noTarget: 'no_target',
  invalidSyntax: 'invalid_syntax',
  mutability: 'immutable_attribute',
  invalidValue: 'validation_failed',
  uniqueness: 'conflict',
} as const satisfies Partial<Record<ScimType, ErrorCode>>;

/** The code of a SCIM error without one. */
const codeOfStatus = {
  400: 'validation_failed',
  404: 'resource_not_found',
  409: 'conflict',
  412: 'precondition_failed',
} as const satisfies Record<number, ErrorCode>;

/**
 * A SCIM protocol error: one of the domain errors (errors/domain-errors.ts), whose code follows
 * from its `scimType` (else its status). Rendered in the SCIM error schema on SCIM routes
 * (errors/scim-error.ts). `status` must be the code's status; it stays for readable call sites.
 */
export class ScimError extends DomainError {
  constructor(
    status: keyof typeof codeOfStatus,
    scimType: keyof typeof codeOfScimType | undefined,
    detail: string,
  ) {
    super(scimType ? codeOfScimType[scimType] : codeOfStatus[status], detail, scimType ? { scimType } : {});
  }
}

export const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);
export const invalidFilter = (detail: string) => new ScimError(400, 'invalidFilter', detail);
export const invalidPath = (detail: string) => new ScimError(400, 'invalidPath', detail);
export const invalidSyntax = (detail: string) => new ScimError(400, 'invalidSyntax', detail);
export const mutability = (detail: string) => new ScimError(400, 'mutability', detail);
export const noTarget = (detail: string) => new ScimError(400, 'noTarget', detail);
export const notFound = (what: string) => new ScimError(404, undefined, `${what} not found`);
export const uniqueness = (detail: string) => new ScimError(409, 'uniqueness', detail);
export const conflict = (detail: string) => new ScimError(409, undefined, detail);
export const preconditionFailed = (detail: string) => new ScimError(412, undefined, detail);
