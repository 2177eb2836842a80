/**
 * Errors of the semantic layer. `UserError` mirrors Cube's `UserError` (the data API answers it
 * as `{"error": message}` with `type: "UserError"`); `ModelValidationError` carries every model
 * problem at once, like Cube's ErrorReporter (packages/cubejs-schema-compiler/src/compiler/ErrorReporter.ts).
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  readonly type = 'UserError';
}

/**
 * The cubes a query names cannot be joined by the model's declared joins (Cube's "Can't find join
 * path"): a UserError like any other on the wire, typed so that a caller listing one member under
 * another's filter (a dashboard's filter values) can tell it from a query that is wrong.
 */
export class JoinPathError extends UserError {
  constructor(readonly cubes: readonly string[]) {
    super(`Can't find join path to join ${cubes.map((c) => `'${c}'`).join(', ')}`);
  }
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
