import { isApiError } from '@tessera/client';
import { describeError } from '../api/errors.ts';

/** A failed call's problems: per field (shown beside that field) and the rest (one sentence). */
export interface Problems {
  fields: Record<string, string>;
  other: string | null;
}

export const noProblems: Problems = { fields: {}, other: null };

/** The field problems of a 400 (problem+json `errors[]`, `body/name` → `name`), and the rest. */
export function problemsOf(error: unknown): Problems {
  const fields: Record<string, string> = {};
  const body = isApiError(error)
    ? (error.body as { errors?: { field?: unknown; message?: unknown }[] })
    : null;
  for (const problem of body?.errors ?? []) {
    if (typeof problem.field === 'string' && typeof problem.message === 'string')
      fields[problem.field.replace(/^body\//, '')] ??= problem.message;
  }
  return { fields, other: Object.keys(fields).length > 0 ? null : describeError(error) };
}
