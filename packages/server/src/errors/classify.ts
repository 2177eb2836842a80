import { DomainError } from './domain-errors.ts';
import { describeProblems, type SchemaIssue, validationProblems } from './validation-problems.ts';

interface FrameworkError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
  validation?: SchemaIssue[];
  validationContext?: string;
  /** PostgreSQL's source file of an error (pg and PGlite both report it). */
  file?: unknown;
}

/**
 * The store refused text the request screening (http/validation.ts) should have caught: still the
 * caller's 400, never a 500. PostgreSQL SQLSTATE 22021 (character_not_in_repertoire: U+0000 in
 * text), 22P05 (untranslatable_character: \u0000 in jsonb), and 22P02 raised by the JSON parser (a
 * lone surrogate in jsonb); a 22P02 of any other input function (an integer cast) is our bug.
 */
function isUnstorableText({ code, file }: FrameworkError): boolean {
  return code === '22021' || code === '22P05' || (code === '22P02' && file === 'jsonfuncs.c');
}

/**
 * The one classifier: any error thrown while serving a request, as a `DomainError` that a
 * renderer (problem+json, SCIM, Cube) can write. Domain errors pass through; Fastify's schema
 * validation, body parsing, size and media-type refusals and the store's refusals become their
 * catalogue codes; anything else is an internal error whose details stay in the log.
 */
export function classify(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as FrameworkError;
  if (Array.isArray(e.validation)) {
    const errors = validationProblems(e.validationContext ?? 'body', e.validation);
    return new DomainError('validation_failed', describeProblems(errors), { errors });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('malformed_body', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DomainError('malformed_body', 'The request body is empty but declared as JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('body_too_large', 'The request body is larger than the server accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError('unsupported_media_type', 'Send JSON with Content-Type: application/json');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new DomainError('uri_too_long', 'A path parameter is longer than the server accepts');
  }
  if (error instanceof SyntaxError && e.statusCode === 400)
    return new DomainError('malformed_body', 'The request body is not valid JSON');
  if (isUnstorableText(e))
    return new DomainError(
      'unstorable_text',
      'A text value contains a character the store cannot hold (U+0000 or an unpaired surrogate)',
    );
  // PostgreSQL SQLSTATE 54000 (program_limit_exceeded): a value larger than an index entry may
  // hold (8191 bytes), where no schema capped its length. The caller's input, not our failure.
  if (e.code === '54000')
    return new DomainError(
      'value_too_long',
      'A value is longer than the store can index; send a shorter one',
    );
  // A unique key in the store stopped a duplicate the service did not foresee: still a conflict.
  if (e.code === '23505')
    return new DomainError('conflict', 'A resource with the same unique value already exists', {
      scimType: 'uniqueness',
    });
  // Anything else the framework refuses (a malformed URL, say) is the caller's, in its words.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const message = typeof e.message === 'string' ? e.message : 'The request cannot be read';
    return e.statusCode === 404
      ? new DomainError('route_not_found', message)
      : new DomainError('bad_request', message);
  }
  return new DomainError('internal_error', 'An unexpected error occurred');
}
