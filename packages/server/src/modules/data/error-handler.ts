import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../errors/domain-errors.ts';
import { DataApiError } from './errors.ts';

interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * Every error of a data-API route in Cube's shape (DESIGN.md "Errors"), never problem+json:
 * `{type: "UserError", error}` for a request the caller got wrong (schema validation included),
 * `{error}` otherwise; a 5xx says nothing about internals.
 */
export function sendDataApiError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof DataApiError) return reply.status(error.statusCode).send(error.body());
  const validation = (error as { validation?: SchemaIssue[] }).validation;
  if (validation) {
    const context = (error as { validationContext?: string }).validationContext ?? 'body';
    return reply
      .status(400)
      .send({ type: 'UserError', error: `Invalid request: ${describeIssues(context, validation)}` });
  }
  // Rate limiting and the like: a domain error keeps its status and words.
  const status = error instanceof DomainError ? error.status : ((error as FastifyError).statusCode ?? 500);
  // Body parsing, size (413) and content-type problems are the caller's: say what they were.
  if (status >= 400 && status < 500) return reply.status(status).send({ error: error.message });
  request.log.error({ err: error }, 'data API request failed');
  return reply.status(500).send({ error: 'Internal Server Error' });
}

/**
 * Schema problems in words naming the field (`body/query/measures must be array`). For a union
 * (a query is an object, an array of them or JSON text) the alternative the value matched by type
 * explains best: its deeper or non-type problems are reported, else the types it may take.
 */
export function describeIssues(context: string, issues: readonly SchemaIssue[]): string {
  const unions = issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  const inUnion = (i: SchemaIssue, u: SchemaIssue) =>
    i !== u && (i.schemaPath ?? '').startsWith(`${u.schemaPath}/${u.keyword}/`);
  const at = (i: SchemaIssue) => `${context}${i.instancePath ?? ''}`;
  const say = (i: SchemaIssue) =>
    i.keyword === 'required'
      ? [i.params?.requiredProperties ?? i.params?.missingProperty ?? []]
          .flat()
          .map((name) => `${at(i)}/${String(name)} is required`)
          .join('; ')
      : `${at(i)} ${i.message ?? 'is invalid'}`;
  const messages: string[] = [];
  for (const i of issues) {
    if (unions.includes(i) || unions.some((u) => inUnion(i, u))) continue;
    messages.push(say(i));
  }
  for (const u of unions) {
    if (unions.some((outer) => inUnion(u, outer))) continue;
    const branches = issues.filter((i) => inUnion(i, u) && !unions.includes(i));
    const depth = (u.instancePath ?? '').length;
    const deeper = branches.filter((i) => (i.instancePath ?? '').length > depth);
    const other = branches.filter((i) => i.keyword !== 'type');
    const best = deeper.length > 0 ? deeper : other;
    if (best.length > 0) messages.push(...best.map(say));
    else
      messages.push(
        `${at(u)} must be ${[...new Set(branches.map((b) => String(b.params?.type)))].join(' or ')}`,
      );
  }
  return [...new Set(messages)].join('; ');
}
