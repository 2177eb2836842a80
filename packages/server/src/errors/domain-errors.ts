/**
 * Typed domain errors. Services throw these; one handler (errors/error-handler.ts) maps them to
 * HTTP. Each carries a stable machine-readable `code` (DESIGN.md "Errors").
 */
export interface FieldProblem {
  /** JSON pointer or dotted name of the offending field, e.g. `/name` or `query.first`. */
  field: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly status: number;
  readonly code: string;
  readonly errors: FieldProblem[];

  constructor(code: string, message: string, errors: FieldProblem[] = []) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.errors = errors;
  }
}

export class ValidationError extends DomainError {
  readonly status = 400;
  constructor(message: string, errors: FieldProblem[] = [], code = 'validation_failed') {
    super(code, message, errors);
  }
}

export class UnauthorizedError extends DomainError {
  readonly status = 401;
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
  constructor(message = 'This credential is not allowed to perform this action', code = 'forbidden') {
    super(code, message);
  }
}

export class NotFoundError extends DomainError {
  readonly status = 404;
  constructor(what: string, code = 'not_found') {
    super(code, `${what} not found`);
  }
}

export class ConflictError extends DomainError {
  readonly status = 409;
  constructor(message: string, code = 'conflict') {
    super(code, message);
  }
}

export class RateLimitedError extends DomainError {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Too many requests; retry after ${retryAfterSeconds} seconds`);
  }
}
