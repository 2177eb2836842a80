import type { ModelError } from '../errors.ts';
import { originOf } from './raw.ts';
import type { SourceLocation } from './types.ts';
import { locationOf } from './yaml.ts';

/**
 * Collects every model error instead of stopping at the first, as Cube's ErrorReporter does.
 * A scope (file, cube, member) is pushed while walking so that messages stay short.
 */
export class ErrorReporter {
  readonly errors: ModelError[] = [];

  error(loc: SourceLocation, cube: string | null, member: string | null, message: string): void {
    this.errors.push({ file: loc.file, line: loc.line, cube, member, message });
  }
}

/** Location of a raw YAML object, or of one of its keys when the key is known. */
export function locate(raw: unknown, fallback: SourceLocation, key?: string): SourceLocation {
  const found = locationOf(originOf(raw));
  if (!found) return fallback;
  const keyLine = key !== undefined ? found.keyLines.get(key) : undefined;
  return { file: found.file, line: keyLine ?? found.line };
}
