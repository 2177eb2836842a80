import { Type } from 'typebox';
import { errorCatalogue, errorCodes } from './catalogue.ts';
import type { FieldProblem } from './domain-errors.ts';
import type { ErrorRenderer } from './reply.ts';

/** RFC 9457 problem details, plus Tessera's stable `code` and field-level `errors`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldProblem[];
  instance?: string;
  requestId?: string;
}

export const problemContentType = 'application/problem+json; charset=utf-8';

/** The Problem shape as published in the OpenAPI document (`components/schemas/Problem`). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: '`urn:tessera:problem:{code}`' }),
    title: Type.String({ description: 'A short summary of the problem type' }),
    status: Type.Integer({ description: 'The HTTP status code' }),
    detail: Type.String({ description: 'What went wrong with this request' }),
    code: Type.Enum(errorCodes, {
      description: 'Stable machine-readable code; each operation lists the ones it can answer',
    }),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
        description: 'Field-level problems, e.g. `{field: "body/name", message: "is required"}`',
      }),
    ),
    instance: Type.Optional(Type.String({ description: 'The request path' })),
    requestId: Type.Optional(Type.String({ description: 'Also in the `x-request-id` response header' })),
  },
  { description: 'RFC 9457 problem details' },
);

/** Management API errors as `application/problem+json` (DESIGN.md "Errors"). */
export const problemRenderer: ErrorRenderer = {
  contentType: problemContentType,
  render(error, request): Problem {
    return {
      type: `urn:tessera:problem:${error.code}`,
      title: errorCatalogue[error.code].title,
      status: error.status,
      detail: error.message,
      code: error.code,
      ...(error.errors.length > 0 ? { errors: error.errors } : {}),
      instance: request.url.split('?')[0],
      requestId: request.id,
    };
  },
};
