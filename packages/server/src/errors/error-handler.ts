import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type FieldProblem, RateLimitedError } from './domain-errors.ts';
import { type Problem, problem, problemContentType } from './problem.ts';

interface AjvLikeError {
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/**
 * Turns every schema violation of a request into one field problem per field (DESIGN.md: list
 * them all), in words a client developer understands: the alternatives of a union are folded into
 * "must be string or null", unknown fields are named, enums list their values.
 */
function validationProblems(context: string | undefined, errors: AjvLikeError[]): FieldProblem[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const isBranch = (e: AjvLikeError) =>
    unions.some((u) => u !== e && e.schemaPath?.startsWith(`${u.schemaPath}/${u.keyword}/`));
  const problems = new Map<string, string>();
  const add = (path: string, message: string) => {
    const field = `${context ?? 'body'}${path}`;
    if (!problems.has(field)) problems.set(field, message);
  };
  for (const e of errors) {
    const path = e.instancePath ?? '';
    if (isBranch(e) || e.keyword === 'additionalProperties') continue;
    if (e.keyword === 'required') {
      const missing = e.params?.requiredProperties ?? e.params?.missingProperty ?? [];
      for (const name of [missing].flat()) add(`${path}/${String(name)}`, 'is required');
    } else if (e.keyword === 'boolean' && e.schemaPath?.endsWith('/additionalProperties')) {
      add(path, 'is not a known field');
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      add(path, `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`);
    } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      const types = errors.filter(
        (b) => b.keyword === 'type' && b.schemaPath?.startsWith(`${e.schemaPath}/${e.keyword}/`),
      );
      const branches = errors.filter((b) => b.schemaPath?.startsWith(`${e.schemaPath}/${e.keyword}/`));
      add(
        path,
        types.length > 0 && types.length === branches.length
          ? `must be ${types.map((t) => String(t.params?.type)).join(' or ')}`
          : (e.message ?? 'is invalid'),
      );
    } else {
      add(path, e.message ?? 'is invalid');
    }
  }
  return [...problems].map(([field, message]) => ({ field, message }));
}

/**
 * The store refused text the request screening (http/validation.ts) should have caught: a second
 * line of defence, so that such input is still the caller's 400 and not a 500. PostgreSQL
 * SQLSTATE 22021 (character_not_in_repertoire: U+0000 in text), 22P05 (untranslatable_character:
 * \u0000 in jsonb) and 22P02 raised by the JSON parser (a lone surrogate in jsonb); a 22P02 from
 * any other input function (an integer cast, say) is our bug and stays a 500.
 */
function isUnstorableText(error: Error): boolean {
  const { code, file } = error as { code?: unknown; file?: unknown };
  return code === '22021' || code === '22P05' || (code === '22P02' && file === 'jsonfuncs.c');
}

/** Maps any error to problem+json. The only place where errors become HTTP responses. */
export function toProblem(error: FastifyError | Error): {
  problem: Problem;
  headers?: Record<string, string>;
} {
  if (error instanceof RateLimitedError) {
    return {
      problem: problem(429, error.code, error.message),
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof DomainError) {
    return { problem: problem(error.status, error.code, error.message, error.errors) };
  }
  const fe = error as FastifyError & { validation?: AjvLikeError[]; validationContext?: string };
  if (fe.validation) {
    const errors = validationProblems(fe.validationContext, fe.validation);
    const fields = errors.map((e) => e.field).join(', ');
    return { problem: problem(400, 'validation_failed', `The request is invalid: ${fields}`, errors) };
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { problem: problem(400, 'malformed_body', 'The request body is not valid JSON') };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { problem: problem(400, 'malformed_body', 'The request body is empty but declared as JSON') };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        problem: problem(413, 'body_too_large', 'The request body is larger than the server accepts'),
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        problem: problem(415, 'unsupported_media_type', 'Send JSON with Content-Type: application/json'),
      };
  }
  if (error instanceof SyntaxError && fe.statusCode === 400) {
    return { problem: problem(400, 'malformed_body', 'The request body is not valid JSON') };
  }
  if (isUnstorableText(error)) {
    return {
      problem: problem(
        400,
        'unstorable_text',
        'A text value contains a character the store cannot hold (U+0000 or an unpaired surrogate)',
      ),
    };
  }
  // A unique key in the store stopped a duplicate the service did not foresee: still a conflict.
  if ((error as { code?: string }).code === '23505') {
    return { problem: problem(409, 'conflict', 'A resource with the same unique value already exists') };
  }
  const status = fe.statusCode;
  if (status && status >= 400 && status < 500) {
    return { problem: problem(status, (fe.code ?? 'bad_request').toLowerCase(), fe.message) };
  }
  return { problem: problem(500, 'internal_error', 'An unexpected error occurred') };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: Error) {
  const { problem: body, headers } = toProblem(error);
  if (body.status >= 500) request.log.error({ err: error }, 'request failed');
  body.instance = request.url.split('?')[0];
  body.requestId = request.id;
  return reply
    .code(body.status)
    .headers(headers ?? {})
    .type(problemContentType)
    .send(body);
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error, request, reply) => sendProblem(request, reply, error as Error));
  app.setNotFoundHandler((request, reply) => {
    const body = problem(404, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`);
    return reply
      .code(404)
      .type(problemContentType)
      .send({ ...body, requestId: request.id });
  });
}
