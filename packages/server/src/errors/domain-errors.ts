import { type CodeWithStatus, catalogueEntry, type ErrorCode, type ScimType } from './catalogue.ts';

/**
 * The one family of errors (DESIGN.md "Errors"): services, the auth hook, SCIM and the data API
 * throw these; `classify.ts` turns framework and store errors into them; a renderer per transport
 * (problem+json, SCIM, Cube) writes them. The status comes from the code (catalogue.ts).
 */
export interface FieldProblem {
  /** JSON pointer or dotted name of the offending field, e.g. `/name` or `query.first`. */
  field: string;
  message: string;
}

export interface DomainErrorOptions {
  /** Field-level problems, listed all at once. */
  errors?: FieldProblem[];
  /** The SCIM `scimType`, when it is not the code's own. */
  scimType?: ScimType;
  /** Sent as `Retry-After`. */
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly errors: FieldProblem[];
  readonly scimType: ScimType | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message);
    const entry = catalogueEntry(code);
    this.name = new.target.name;
    this.code = code;
    this.status = entry.status;
    this.errors = options.errors ?? [];
    this.scimType = options.scimType ?? entry.scimType;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, errors: FieldProblem[] = [], code: CodeWithStatus<400> = 'validation_failed') {
    super(code, message, { errors });
  }
}

export class UnauthorizedError extends DomainError {
  // biome-ignore lint/complexity/noUselessConstructor: narrows the code to the 401 codes
  constructor(code: CodeWithStatus<401>, message: string) {
    super(code, message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(
    message = 'This credential is not allowed to perform this action',
    code: CodeWithStatus<403> = 'forbidden',
  ) {
    super(code, message);
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string, code: CodeWithStatus<404> = 'not_found') {
    super(code, `${what} not found`);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, code: CodeWithStatus<409> = 'conflict') {
    super(code, message);
  }
}

export class RateLimitedError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super('rate_limited', `Too many requests; retry after ${retryAfterSeconds} seconds`, {
      retryAfterSeconds,
    });
  }
}
