import type { OpenApiDocument, Operation } from './operations.ts';

/**
 * Every management error is `application/problem+json` (DESIGN.md "Errors"). An operation whose
 * document lists no error response at all would give openapi-fetch an `error` of type `never`;
 * such an operation gets this generic problem as its `default` response instead. Operations that
 * list their errors (with their `code` enum) keep exactly what the document says.
 */
const genericProblem = {
  description: 'RFC 9457 problem details (the document lists no error response for this operation)',
  content: {
    'application/problem+json': {
      schema: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'code'],
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          code: { type: 'string', description: 'Stable machine-readable code' },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: { field: { type: 'string' }, message: { type: 'string' } },
            },
          },
          instance: { type: 'string' },
          requestId: { type: 'string' },
        },
      },
    },
  },
};

const isErrorStatus = (status: string) => status === 'default' || /^[45]/.test(status);

/** A copy of the document where each management operation has at least one error response. */
export function withProblemFallback(document: OpenApiDocument, operations: readonly Operation[]) {
  const copy = structuredClone(document);
  for (const op of operations) {
    const operation = copy.paths[op.path][op.method]!;
    operation.responses ??= {};
    if (!Object.keys(operation.responses).some(isErrorStatus)) operation.responses.default = genericProblem;
  }
  return copy;
}
