import type { FastifyError } from 'fastify';
import { DomainError, RateLimitedError } from '../../errors/domain-errors.ts';
import { urn } from './constants.ts';

/** The `scimType` values of RFC 7644 section 3.12, table 9. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/** A SCIM protocol error: what services of this module throw; rendered by `toScimErrorBody`. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType | undefined,
    detail: string,
  ) {
    super(detail);
    this.name = 'ScimError';
  }
}

export const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);
export const invalidFilter = (detail: string) => new ScimError(400, 'invalidFilter', detail);
export const invalidPath = (detail: string) => new ScimError(400, 'invalidPath', detail);
export const noTarget = (detail: string) => new ScimError(400, 'noTarget', detail);
export const notFound = (what: string) => new ScimError(404, undefined, `${what} not found`);

export interface ScimErrorBody {
  schemas: [typeof urn.error];
  status: string;
  scimType?: ScimType;
  detail: string;
}

function body(status: number, detail: string, scimType?: ScimType): ScimErrorBody {
  return { schemas: [urn.error], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
}

/**
 * Maps any error to the SCIM error schema (RFC 7644 section 3.12): SCIM errors, the domain errors
 * of the auth hook (401/403), request validation, malformed JSON, and unique-key violations that
 * a race let through (PostgreSQL 23505 -> 409 uniqueness). A 5xx never carries internals.
 */
export function toScimErrorBody(error: Error): { body: ScimErrorBody; headers?: Record<string, string> } {
  if (error instanceof ScimError) return { body: body(error.status, error.message, error.scimType) };
  if (error instanceof RateLimitedError) {
    return { body: body(429, error.message), headers: { 'retry-after': String(error.retryAfterSeconds) } };
  }
  if (error instanceof DomainError) return { body: body(error.status, error.message) };
  const fe = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fe.validation) {
    const where = fe.validation.map(
      (v) => `${fe.validationContext ?? 'body'}${v.instancePath ?? ''} ${v.message ?? 'is invalid'}`,
    );
    return { body: body(400, `The request is invalid: ${where.join('; ')}`, 'invalidValue') };
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { body: body(400, 'The request body is not valid JSON', 'invalidSyntax') };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { body: body(413, 'The request body is larger than the server accepts', 'tooMany') };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { body: body(415, 'Send JSON with Content-Type: application/scim+json or application/json') };
  }
  if (error instanceof SyntaxError)
    return { body: body(400, 'The request body is not valid JSON', 'invalidSyntax') };
  if ((error as { code?: string }).code === '23505') {
    return { body: body(409, 'A resource with the same unique value already exists', 'uniqueness') };
  }
  const status = fe.statusCode;
  if (status && status >= 400 && status < 500) return { body: body(status, fe.message) };
  return { body: body(500, 'An unexpected error occurred') };
}
