import type { FieldProblem } from './domain-errors.ts';

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

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export const problemContentType = 'application/problem+json; charset=utf-8';

export function problem(status: number, code: string, detail: string, errors?: FieldProblem[]): Problem {
  return {
    type: `urn:tessera:problem:${code}`,
    title: titles[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}
