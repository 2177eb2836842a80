/**
 * Data-API errors in Cube's shape (DESIGN.md "Errors"): `{"error": "..."}`, plus
 * `"type": "UserError"` for a query the caller got wrong. Routes of the data API map these in
 * their own error handler (plugin.ts); they never become problem+json.
 */
export class DataApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly userError = false,
  ) {
    super(message);
  }

  body(): { error: string; type?: 'UserError' } {
    return this.userError ? { type: 'UserError', error: this.message } : { error: this.message };
  }
}

/** Missing, malformed, wrongly signed or expired token: Cube answers 403 `{error}` for all. */
export const forbidden = (message: string) => new DataApiError(403, message);
export const notFound = (message: string) => new DataApiError(404, message);
export const userError = (message: string) => new DataApiError(400, message, true);
