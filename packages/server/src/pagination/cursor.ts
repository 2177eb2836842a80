import { ValidationError } from '../errors/domain-errors.ts';

export type CursorValue = string | number | null;

/**
 * Opaque cursors (spec section 2.4): the sort key of the last row seen, JSON in base64url with a
 * version tag. Clients must treat them as opaque; a cursor that does not decode is a 400.
 */
export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify({ v: 1, k: values })).toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): CursorValue[] {
  const invalid = () =>
    new ValidationError(
      'Invalid cursor',
      [{ field: 'querystring/after', message: 'is not a cursor this list issued' }],
      'invalid_cursor',
    );
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const k = (parsed as { v?: unknown; k?: unknown })?.k;
  if ((parsed as { v?: unknown }).v !== 1 || !Array.isArray(k) || k.length !== arity) throw invalid();
  if (!k.every((x) => x === null || typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)))) {
    throw invalid();
  }
  return k as CursorValue[];
}
