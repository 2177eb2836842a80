import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type FieldProblem, RateLimitedError } from './domain-errors.ts';
import { type Problem, problem, problemContentType } from './problem.ts';

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Turns every schema violation of a request into a field problem (DESIGN.md: list them all). */
function validationProblems(context: string | undefined, errors: AjvLikeError[]): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const e of errors) {
    const field = e.instancePath ?? '';
    const missing = e.params?.requiredProperties ?? e.params?.missingProperty;
    if (e.keyword === 'required' && missing) {
      const names = Array.isArray(missing) ? missing : [missing];
      for (const name of names) push(`${field}/${String(name)}`, 'is required');
      continue;
    }
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      // The branch errors that precede it say what is wrong; keep this one only if alone.
      if (problems.some((p) => p.field.startsWith(`${context ?? ''}:${field}`))) continue;
    }
    push(field, e.message ?? 'is invalid');
  }
  return problems;

  function push(path: string, message: string) {
    const full = `${context ?? 'body'}${path === '' ? '' : path.startsWith('/') ? path : `/${path}`}`;
    const key = `${full}|${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ field: full, message });
  }
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
