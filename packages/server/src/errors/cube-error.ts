import type { ErrorRenderer } from './reply.ts';

/**
 * Data-API errors in Cube's shape (DESIGN.md "Errors"; data-api.yaml `V1Error`): `{type:
 * "UserError", error}` for a request the caller got wrong (400), `{error}` otherwise.
 */
export const cubeErrorRenderer: ErrorRenderer = {
  contentType: 'application/json; charset=utf-8',
  render(error): { type?: 'UserError'; error: string } {
    return error.status === 400 ? { type: 'UserError', error: error.message } : { error: error.message };
  },
};
