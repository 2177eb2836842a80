/**
 * Errors of the semantic layer. `UserError` mirrors Cube's `UserError` (the data API answers it
 * as `{"error": message}` with `type: "UserError"`); `ModelValidationError` carries every model
 * problem at once, like Cube's ErrorReporter (packages/cubejs-schema-compiler/src/compiler/ErrorReporter.ts).
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  readonly type = 'UserError';
}

/** One problem in the data model, located so that an editor can jump to it. */
export interface ModelError {
  readonly file: string;
  readonly line: number | null;
  readonly cube: string | null;
  readonly member: string | null;
  readonly message: string;
}

export function formatModelError(e: ModelError): string {
  const where = `${e.file}${e.line !== null ? `:${e.line}` : ''}`;
  const what = [e.cube, e.member].filter(Boolean).join('.');
  return `${where}${what ? ` (${what})` : ''}: ${e.message}`;
}

export class ModelValidationError extends Error {
  override readonly name = 'ModelValidationError';
  constructor(readonly errors: readonly ModelError[]) {
    super(`Data model has ${errors.length} error(s):\n${errors.map(formatModelError).join('\n')}`);
  }
}
